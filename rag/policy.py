"""The answer policy: every threshold, margin and weight of answering, in one typed group.

It lives on ``Settings.answer`` (environment ``RAG_ANSWER__<FIELD>``, e.g. ``RAG_ANSWER__ABSTAIN_THRESHOLD=0.6``).
The values are fitted on the dev split of the question set (see README, "Calibration"); nothing here is keyed to a
single question.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class AnswerPolicy(BaseModel):
    """How evidence is scored, how answers are planned and when the assistant abstains."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    # --- retrieval fusion (abstract level) ---
    fusion_dense_weight: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Share of the min-max-normalised dense score in the fused abstract score (the rest is BM25, "
        "scaled by how far BM25 is trusted for the question: bm25_trust_low/high). Fitted on dev.",
    )
    bm25_trust_low: float = Field(
        default=0.10,
        ge=0.0,
        le=1.0,
        description="BM25 strength (the best match's score over (k1+1)*sum of the question words' idf) at or below "
        "which BM25 gets no fusion weight: the question shares only a few common words with any abstract (a "
        "paraphrase), so the dense ranking decides. Fitted on dev.",
    )
    bm25_trust_high: float = Field(
        default=0.30,
        ge=0.0,
        le=1.0,
        description="BM25 strength at or above which BM25 keeps its full fusion weight (linear in between). "
        "Fitted on dev.",
    )
    dense_clear_gap_low: float = Field(
        default=0.3,
        ge=0.0,
        le=1.0,
        description="Dense clarity (rag.retrieve.dense_clarity: the gap between the dense ranking's first two scores "
        "over the gap between its first and dense_clarity_reference-th) at or below which a partial lexical match "
        "(BM25 strength under bm25_trust_high) keeps its fusion weight. Above it the weight shrinks linearly, to "
        "nothing at dense_clear_gap_high: a question sharing only some words with an abstract does not override a "
        "clear semantic winner, while one that names the corpus's rare terms (full BM25 strength) still does; "
        "applied only when BM25's best abstract is not the dense winner. Fitted on dev with h (592 answerable): "
        "hybrid hit@1 0.971 either way (a plateau over 0.2-0.4), recall@5 0.985 -> 0.986 (list 0.918 -> 0.929).",
    )
    dense_clear_gap_high: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="Dense clarity at or above which a partial lexical match gets no fusion weight (see "
        "dense_clear_gap_low). Fitted on dev.",
    )
    dense_clarity_reference: int = Field(
        default=10,
        ge=2,
        description="Dense clarity compares the first two dense scores' gap with the gap between the first and this "
        "rank's score (the field of runners-up).",
    )
    lexical_skips_request_words: bool = Field(
        default=True,
        description="Abstract retrieval's BM25 leaves out the words of the request itself ('which papers', "
        "'summarize', 'overview', 'study', 'propose'; rag.question.lexical_words): they say what kind of answer is "
        "wanted, not what it is about. Evidence sentences still match every word (there 'reported' or 'method' can "
        "be what the answer sentence says). Fitted on dev (with g): hybrid hit@1 0.958 -> 0.960, summary 0.893 -> "
        "0.929; answers unchanged.",
    )
    lexical_expansion_min_sim: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="Off at 1 (the default). Below 1, a single-paper question (not a list, summary, yes/no or "
        "comparison: rag.retrieve.single_paper) whose own words match no abstract fully (BM25 strength under "
        "bm25_trust_high) also matches, in hybrid retrieval's BM25, the corpus words whose MiniLM vector is at least "
        "this similar to one of its words (rag.retrieve.expansion_terms), each weighted by that similarity times "
        "lexical_expansion_weight: a question describing a work in everyday words reaches the abstract's own terms "
        "where the encoder puts the two close. At 0.6 against off: dev hybrid hit@1 0.972 -> 0.976, paraphrase 0.860 "
        "-> 0.882 (no dev shape lower); validation hit@1 0.958 -> 0.959, paraphrase 0.861 -> 0.868 (cit R 0.795 -> "
        "0.799), follow-up 0.927 -> 0.938, but summary 0.958 -> 0.950 and abstention on unanswerable 0.772 -> 0.769 "
        "(one question each), so it stays off. Costs the corpus vocabulary's vectors on first use (5-8 s for these "
        "3,539 words on 2 busy cores; they belong in the index before this is turned on) and ~16 ms a question "
        "(p50). Applied to every shape it lowered dev list and summary hit@1 (0.952 -> 0.889, 1.000 -> 0.931). "
        "Re-measured after writer sets j, k, l, n moved to dev (round 10): dev hit@1 0.966 -> 0.969, paraphrase 0.845 "
        "-> 0.862 (cit R 0.776 -> 0.797, key facts 0.733 -> 0.750; +8 / -4 questions), no dev shape lower; but "
        "validation hit@1 0.957 -> 0.954, paraphrase 0.875 -> 0.871, fact 0.994 -> 0.988, list 0.940 -> 0.930, "
        "summary 0.980 -> 0.970 (follow-up 0.887 -> 0.900): it does not carry to unseen writers, so it stays off.",
    )
    lexical_expansion_weight: float = Field(
        default=1.0,
        ge=0.0,
        description="Weight of an expansion word's BM25 column (times its similarity) next to the question's own "
        "words' weight of 1 (see lexical_expansion_min_sim). Chosen on dev with it (0.75 and 1.0 within a question).",
    )
    dense_sentences: int = Field(
        default=2,
        ge=0,
        description="An abstract's dense score is the mean cosine with the question of its this-many best sentences "
        "(read for the abstracts the chunk search or BM25 found); 0 scores it by its best chunk instead. A chunk "
        "vector averages several sentences, so it matches a question about one part of the work less sharply; two "
        "sentences rather than one, so one sentence sharing a phrase does not decide alone. Fitted on dev (all of it, "
        "b/d/e/f questions): hit@1 and recall@5 the same within one or two questions, list recall@5 higher.",
    )
    dense_best_share: float = Field(
        default=0.3333,
        ge=0.0,
        le=1.0,
        description="Share of an abstract's dense score taken from its single best sentence; dense_centroid_share "
        "from its centroid, the rest from the mean of its dense_sentences best (rag.retrieve.pooled_views). Three "
        "views of one abstract in equal shares (chosen, not fitted): no one view decides. Measured against the two "
        "best sentences alone: dense-only hit@1 dev 0.917 -> 0.924, validation 0.890 -> 0.906 (paraphrase 0.771 -> "
        "0.802); hybrid hit@1 dev 0.970 -> 0.971 (recall@5 0.987 -> 0.985), validation 0.952 -> 0.954 (summary "
        "0.900 -> 0.925, where hybrid had fallen below dense-only; paraphrase 0.823 either way).",
    )
    dense_centroid_share: float = Field(
        default=0.3333,
        ge=0.0,
        le=1.0,
        description="Share of an abstract's dense score taken from the cosine of the question with the abstract's "
        "centroid (the mean of its sentence vectors): the abstract read whole, so a question describing the work in "
        "its own words across several of its parts is not judged by two sentences alone (see dense_best_share).",
    )
    named_work_weight: float = Field(
        default=1.0,
        ge=0.0,
        description="Added to the link weight (then times link_boost) of the one work a single-paper question "
        "(fact, number, name, how/why) names as the corpus's own, when it links other names too: a name one abstract "
        "alone uses and introduces ('what T2I models is FooNet tested on'). The question is about that work, so a "
        "term the question also uses and other abstracts name ('T2I', in a benchmark's label) does not carry the "
        "ranking past it.",
    )
    link_boost: float = Field(
        default=0.3,
        ge=0.0,
        description="Added (times the link's strength, 1/sqrt of how many abstracts use the name) to the fused "
        "score (0-1) of an abstract that uses a name the question mentions (linked through the corpus lexicon, "
        "typos tolerated): it decides between close candidates, but does not override an abstract both dense and "
        "BM25 rank clearly first, since a name the question uses in passing ('LLM-based', 'MoE') is often not the "
        "work it asks about. Fitted on dev (with g): 1.0 -> 0.3 hybrid hit@1 0.960 -> 0.964 (fact 0.980 -> 1.000, "
        "summary 0.929 -> 0.964, yes/no 0.949 -> 0.974, list 0.939 -> 0.909, where the answer lists the papers "
        "naming it anyway); fact cit P 0.967 -> 0.989, R 0.882 -> 0.902.",
    )

    # --- entity linking ---
    fuzzy_min_ratio: float = Field(
        default=80.0,
        ge=0.0,
        le=100.0,
        description="Least rapidfuzz ratio (0-100) for a question token to link to a corpus name it is not spelt "
        "exactly like (typos: 'AsayBench' -> 'AssayBench').",
    )
    fuzzy_min_chars: int = Field(
        default=5, ge=2, description="Shorter tokens link only when spelt exactly (short names are too close)."
    )
    generic_name_share: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description="A corpus name used by more than this share of the abstracts (e.g. 'LLM') is field "
        "vocabulary, not the name of one work, and is not linked.",
    )

    # --- evidence scoring ---
    lexical_weight: float = Field(default=0.35, ge=0.0, description="Weight of sentence BM25 (0-1, relative).")
    focus_weight: float = Field(
        default=0.2, ge=0.0, description="Weight of the share of the asked-about words a sentence holds."
    )
    asked_weight: float = Field(
        default=0.2,
        ge=0.0,
        description="Single-paper and compare answers: weight of each sentence's MiniLM similarity to what the "
        "question asks about its work, the question without the work's name (rag.question.asked_phrase: 'How does "
        "FooNet pick the step size?' -> 'pick the step size'). The name makes all of a work's sentences resemble "
        "the question alike; this picks the one answering what is asked. Fitted on dev (0.2: key facts 0.838 -> "
        "0.840; 0.4: 0.837).",
    )
    number_bonus: float = Field(
        default=0.12, ge=0.0, description="Added for a sentence holding a number when a number is asked for."
    )
    name_answer_bonus: float = Field(
        default=0.15,
        ge=0.0,
        description="Added for a sentence that names something the question does not (a dataset, benchmark or "
        "model) when the question asks for names ('which datasets…', 'evaluated on what').",
    )
    evaluation_bonus: float = Field(
        default=0.4,
        ge=0.0,
        description="Added for a sentence that says where something is evaluated and names the data or benchmark "
        "('Experiments on A and B …') when the question asks what a work is evaluated on ('which datasets…', "
        "'what is X tested on'). Fitted on dev.",
    )
    role_bonus: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {
            "list": {"contribution": 0.15, "background": -0.25, "gap": -0.25, "availability": -0.4},
            "summary": {"contribution": 0.15, "background": -0.25, "gap": -0.25, "availability": -0.4},
            "yes_no": {"contribution": 0.15, "background": -0.25, "gap": -0.25, "availability": -0.4},
            "compare": {"background": -0.2, "gap": -0.2, "availability": -0.4},
            "how_why": {"method": 0.15, "contribution": 0.05, "background": -0.2, "gap": -0.15, "availability": -0.4},
            "how_why_failure": {"gap": 0.15, "method": 0.05, "availability": -0.4},
            "number": {"result": 0.05, "availability": -0.3},
            "fact": {"background": -0.25, "gap": -0.2, "availability": -0.3},
            "name": {"background": -0.1, "gap": -0.1, "availability": -0.3},
            "followup": {"background": -0.25, "gap": -0.2, "availability": -0.3},
            "findings": {"result": 0.15, "background": -0.25, "gap": -0.2, "availability": -0.3},
            "problem": {"gap": 0.15, "background": -0.05, "availability": -0.3},
            "significance": {"gap": 0.15, "background": 0.1, "method": -0.1, "availability": -0.4},
        },
        description="Per question shape, a bonus (or penalty) by sentence role (background, gap, contribution, "
        "method, result, availability). 'findings' is for a question asking what a work found or how well it does "
        "('what was the main finding?', 'how do models do on it?'; rag.question.asks_findings). 'how_why_failure' "
        "is for a why-question about a shortcoming ('why does X fail on Y'), whose answer is the abstract's diagnosis (gap sentences); 'problem' for a question asking what problem a work remedies ('what problem does X address?', rag.question.asks_problem_addressed), whose answer is its gap sentences too; 'significance' for one asking why a work or its result matters ('why does that matter?', rag.question.asks_significance), whose answer is its set-up (background, gap) and conclusion. A question asking for code or data "
        "drops the availability penalty.",
    )
    conclusion_bonus: float = Field(
        default=0.15,
        ge=0.0,
        description="Added to the score of a sentence drawing the work's conclusion ('Together, these results "
        "establish …', 'Overall, …'; rag.roles.concludes) when the question asks for the main takeaway or conclusion "
        "(rag.question.asks_takeaway) or why the work matters (rag.question.asks_significance), on top of the role bonus.",
    )
    terse_role_sentences: int = Field(
        default=1,
        ge=0,
        description="A keyword query ('sparse probe pruning accuracy') is answered with at least this many "
        "contribution sentences and this many result sentences of the paper (what it contributes and what it "
        "finds). Fitted on dev.",
    )
    terse_method_sentences: int = Field(
        default=0,
        ge=0,
        description="... and at least this many method sentences (how it works: the named parts of the method). "
        "Fitted on dev.",
    )
    proposal_sentences: int = Field(
        default=1,
        ge=0,
        description="'How …' answers quote at least this many sentences saying what the work proposes ('We propose "
        "FooNet, …'), before its method sentences: the mechanism is named before it is detailed. General ('fact') "
        "answers with fewer sentences than their most quote one too. Fitted on dev.",
    )
    instance_bonus: float = Field(
        default=0.3,
        ge=0.0,
        description="Added to a sentence's score when it names instances of the kind a wh-question asks for "
        "(rag.question.asked_kind, names_instances: 'what joint types can FooNet model?' -> '… revolute and prismatic "
        "joints'; 'which metrics?' -> 'metrics, including A and B'). The words describing the work pick its summary "
        "sentence; the one listing what was asked for answers. Fitted on dev (key facts of fact questions 0.946 at 0 -> 0.955 "
        "at 0.2, 0.960 at 0.3; 0.4 and 0.5 lift lists that are not the answer). 0: off.",
    )
    asked_term_extra: int = Field(
        default=1,
        ge=0,
        description="At most this many sentences added to each paper of an answer (asked_term_shapes) so that it "
        "holds each distinctive word of the question (rag.evidence.distinctive_words) the paper's abstract uses but "
        "none of its quoted sentences does ('is there a FooNet benchmark using neural collapse?': the sentence on "
        "neural collapse, not only the one presenting the benchmark). A question's rare word is what it asks about. "
        "Added sentences are shown, not read by abstention. Fitted on dev: key facts 0.888 -> 0.892 (12 answers up, "
        "none down, 79 of 2,881 answers longer); 2 gains nothing over 1. 0: off.",
    )
    asked_term_shapes: tuple[str, ...] = Field(
        default=("fact", "number", "name", "how_why", "followup", "yes_no"),
        description="Question shapes whose answers get asked_term_extra: single-paper answers and, per paper, the "
        "papers a yes/no answer names. Not lists and summaries: a topic's rare words are what makes each paper "
        "belong, and their lines quote it already.",
    )
    asked_term_skip_roles: tuple[str, ...] = Field(
        default=("background", "gap"),
        description="Sentence roles asked_term_extra never adds: a set-up sentence holds the field's words ('membership "
        "inference attacks outperform …'), not what the work says of them (with them: as many key facts gained, 3x "
        "as many answers longer).",
    )
    asked_term_max_docs: int = Field(
        default=6,
        ge=1,
        description="A question word is distinctive (asked_term_extra) when at most this many abstracts use it. "
        "Fitted on dev (3: 6 answers up; 6: 12; 10: 12 with more answers longer).",
    )
    asked_term_max_zipf: float = Field(
        default=5.6,
        description="... and its written form is rarer in English than this Zipf frequency ('collapse' 4.2, 'TabPFN' "
        "0, 'top' 5.57; not 'need' 6.0 or 'the'). Fitted on dev (4.5: 7 answers up; 5.2: 10; 5.6: 12; no limit: 12 "
        "with more answers longer).",
    )
    instance_shapes: tuple[str, ...] = Field(
        default=("fact", "name", "number", "how_why", "followup"),
        description="Question shapes whose sentences get instance_bonus (single-paper shapes).",
    )
    instance_skip_roles: tuple[str, ...] = Field(
        default=("background", "gap"),
        description="Sentence roles never given instance_bonus: the instances a set-up sentence lists are the "
        "field's or earlier work's ('existing models struggle with tasks such as X'), not the work's own.",
    )
    elaboration_shapes: tuple[str, ...] = Field(
        default=("fact", "how_why", "number", "name"),
        description="Question shapes whose single-paper answers also quote the sentence that spells out the best one "
        "(the next sentence, opening 'In particular', 'Specifically', 'However, this' …). Fitted on dev.",
    )
    named_sentence_shapes: tuple[str, ...] = Field(
        default=("fact", "how_why", "yes_no"),
        description="Question shapes whose single-paper answers quote a sentence giving a name to what the work "
        "introduces (for yes/no, the line of each paper, next to its best sentence) ('We propose FooNet', 'which we term the *gap ratio*', 'Our Foo Index (FI) …'; rag.roles."
        "names_contribution) when none of the chosen sentences does: an answer about a work states what it is "
        "called, when that sentence is within named_margin of the best one. Fitted on dev.",
    )
    name_answer_margin: float = Field(
        default=0.7,
        ge=0.0,
        description="A question asking what a work is evaluated on ('which datasets…', 'what is X tested on') is "
        "answered with at least one sentence saying where it is evaluated and naming something the question does "
        "not (rag.roles.states_evaluation), the best one scoring within this of the best chosen sentence; it takes "
        "the place of the weakest other one. Fitted on dev.",
    )
    count_sentences: int = Field(
        default=1,
        ge=0,
        description="Single-paper answers to a count question ('how many runs and sessions …') also quote, for each "
        "counted thing no quoted sentence gives a number of, the best sentence that does ('6,000+ runs'), at most "
        "this many added: a question counting two things asks for two numbers (rag.compose.extractive.with_counts). "
        "Dev: 4 answers change, typo key facts 0.936 -> 0.942, none lower; validation unchanged (0.814).",
    )
    spelled_out_names: bool = Field(
        default=True,
        description="Single-paper answers to a question asking for names ('which notions …', 'what datasets …') "
        "also quote the sentence spelling out a short form the quoted sentences use but do not spell out "
        "('statistical parity (SP)' for 'SP-aligned properties conflict'), unless the question uses it: the answer "
        "gives the names, not only their abbreviations (rag.compose.extractive.with_spelled_out; one sentence at most). "
        "Dev: 6 answers change, fact key facts 0.914 -> 0.924, none lower; validation unchanged (0.814).",
    )
    spelled_out_any_kind: bool = Field(
        default=True,
        description="Single-paper answers to a question of any kind (not only one asking for names, see "
        "spelled_out_names) also quote the sentence spelling out a short form their quoted sentences use but do not "
        "spell out ('word-level unigram cross-entropy (UCE)' for '… alignment, UCE, tracks accuracy'), unless the "
        "question uses it; added after the shape's own choice, so it displaces none of it (one sentence at most). "
        "A question describing a work in its own words (a paraphrase) names none of its terms, and the answer then "
        "says what the work calls the idea asked about. Dev: 218 answers change (one sentence more), 9 gain a key fact, "
        "none loses one: paraphrase key facts 0.799 -> 0.809 (new writer sets x/y/z/a 0.745 -> 0.766), yes/no "
        "0.918 -> 0.925 (older sets), overall 0.893 -> 0.895; citations and abstention unchanged; validation key "
        "facts 0.831 -> 0.832 (paraphrase 0.742 -> 0.745, yes/no 0.852 -> 0.859), nothing lower.",
    )
    naming_follows: bool = Field(
        default=True,
        description="Single-paper answers and each line of a list answer also quote the sentence right after a quoted "
        "one that gives a name to what that one describes ('We call this failure FooBlindness.', 'This regime, which "
        "we term the lazy phase, …'; rag.compose.extractive.names_what_precedes): the answer says what the work "
        "calls the finding or model it quotes, in a sentence too short to match the question by itself.",
    )
    named_margin: float = Field(
        default=0.6, ge=0.0, description="See named_sentence_shapes: how far below the best chosen sentence's score "
        "the sentence naming the work's contribution may be. Fitted on dev."
    )
    named_extra: int = Field(
        default=0, ge=0, description="See named_sentence_shapes: how many sentences beyond the shape's most the "
        "naming sentence may add (0: it takes the place of the weakest other one). Fitted on dev."
    )
    elaboration_extra: int = Field(
        default=1,
        ge=0,
        description="How many sentences beyond the shape's most the sentence spelling out the best one (see "
        "elaboration_shapes) may add, so that it does not push out the sentences the answer's roles asked for. "
        "Fitted on dev.",
    )
    core_shapes: tuple[str, ...] = Field(
        default=("fact", "how_why"),
        description="Question shapes whose single-paper answers to a general question (not one asking for a number "
        "or a name) also quote what the work proposes and what it finds (core_proposal_sentences, "
        "core_result_sentences), up to core_extra sentences beyond the ones chosen, and the sentence right after the "
        "proposal when it details it (detail_roles). A paraphrased question shares its words with the sentences "
        "restating the problem, while the facts it asks for sit in the proposal and the findings. Of the result "
        "sentences, one stating what the work shows ('We prove that …') comes before an evaluation report. Fitted on "
        "dev: key facts of the answered single-paper questions 0.916 -> 0.947 (the i set, measured after: 0.817 -> "
        "0.897), 3.3 -> 3.7 sentences.",
    )
    paper_name_margin: float = Field(
        default=1.0,
        ge=0.0,
        description="A question asking which one paper does something ('Which paper proposes X?'; rag.question."
        "asks_for_one_paper) is answered like any question about one work, and also quotes the sentence naming what "
        "the work introduces (rag.roles.names_contribution) when it scores within this of the best chosen sentence: "
        "the answer says which paper it is.",
    )
    loose_core: bool = Field(
        default=True,
        description="Single-paper answers to a question read through a word-by-word gloss (a question in Chinese "
        "without a model; rag.gloss) quote what the work proposes and finds (core_shapes) whatever the question's "
        "kind (but a number: 'how many' survives a gloss): the gloss's words are one sense of many and the shape read "
        "from them a guess ('X is how improve Y? use which metric?' reads as asking for a name). Dev chinese key "
        "facts 0.949 -> 0.974 (on the gloss with machine-learning terms), characters 616 -> 654.",
    )
    core_proposal_sentences: int = Field(
        default=1, ge=0, description="See core_shapes: at least this many sentences saying what the work proposes."
    )
    core_result_sentences: int = Field(
        default=1, ge=0, description="See core_shapes: at least this many result sentences (what the work finds)."
    )
    core_stated_finding: bool = Field(
        default=True,
        description="See core_shapes: when none of the quoted sentences states what the work finds ('We show that "
        "…', 'The analysis reveals that …': rag.roles.states_finding), the best-scoring result sentence that does is "
        "quoted too (one sentence more): the result quota can be met by a sentence that only restates the problem "
        "or reports an evaluation, while a paraphrased why- or how-question asks for the finding; the main finding "
        "before one added to it ('We also show that …'). Dev paraphrase key facts 0.765 -> 0.779 (25 answers "
        "change, none loses a key fact), overall 0.909 -> 0.911; validation paraphrase 0.694 -> 0.717.",
    )
    core_extra: int = Field(
        default=2, ge=0, description="See core_shapes: most sentences those roles may add beyond the chosen ones."
    )
    part_plan_sentences: int = Field(
        default=2,
        ge=0,
        description="Single-paper answers to a compound question ('what does X propose, and how much memory does it "
        "save?'): each part is also answered as if asked alone (rag.answering.with_part_plans), adding at most this "
        "many of its sentences, which abstention does not read. 0: off. Dev: key facts 0.886 -> 0.888 (4 up, none "
        "down), validation 0.814 -> 0.820 (paraphrase 0.748 -> 0.762), abstention unchanged; 1, 2 and all alike.",
    )
    clause_answer_margin: float | None = Field(
        default=0.0,
        ge=0.0,
        description="Single-paper answers to a compound question ('How does X work, and is Y a good idea?'; "
        "rag.question.clauses) keep each part's best sentence (scored for that part) when the sentences chosen for "
        "the question's roles answer that part worse by more than this: each part asks its own thing "
        "(rag.compose.extractive.with_clause_answers). None: not applied. Dev: 6 answers change (4 paraphrase, 2 "
        "how/why), paraphrase key facts 0.735 -> 0.743, none lower.",
    )
    detail_roles: tuple[str, ...] = Field(
        default=("method", "result"),
        description="See core_shapes: the roles the sentence right after the quoted proposal may have to be quoted "
        "with it ('We propose FooNet. It first encodes …' -> both).",
    )
    response_shapes: tuple[str, ...] = Field(
        default=("fact", "how_why"),
        description="Question shapes whose single-paper answers, when they quote a set-up sentence (setup_roles: the "
        "problem or its setting), also quote the sentence right after it when that one says what the work does "
        "(response_roles), up to response_extra sentences: a question restating a work's problem matches the "
        "sentence posing it, the answer is the work's response that follows it (rag.compose.extractive."
        "with_response). Not for a why-question about a shortcoming: its answer is the set-up (the diagnosis). Dev: 2 "
        "answers change (paraphrase key facts 0.746 -> 0.754), none lower, 0.3% more characters.",
    )
    setup_roles: tuple[str, ...] = Field(
        default=("background", "gap"), description="See response_shapes: the roles of a set-up sentence."
    )
    response_roles: tuple[str, ...] = Field(
        default=("contribution", "method"),
        description="See response_shapes: the roles of the sentence answering a set-up one.",
    )
    response_extra: int = Field(
        default=1, ge=0, description="See response_shapes: most sentences added (the set-up's answers, best first)."
    )
    compare_detail_roles: tuple[str, ...] = Field(
        default=("method", "contribution"),
        description="Compare tables: the roles the sentence right after a work's 'What it does' sentence may have to "
        "be quoted with it: a further contribution in that cell ('We propose FooNet. It also releases …'), a method "
        "sentence first in the 'How' cell ('FooNet first encodes …'). An abstract details what it proposes in the "
        "next sentence, which holds the facts a comparison asks for whatever words it shares with the question "
        "(rag.compose.extractive.plan_compare).",
    )
    compare_topic_works: int = Field(
        default=4,
        ge=2,
        description="A comparison of the works on a topic that says not how many ('how do the papers on pruning "
        "differ?') compares at most this many: the first of those a request for papers on the topic lists (one "
        "that says 'the two …' compares that many; rag.question.compared_topic). A table wider than this is a list.",
    )
    compare_what_sentences: int = Field(
        default=2,
        ge=1,
        description="Compare tables: most sentences in a work's 'What it does' cell: its main contribution sentence, "
        "the further contribution right after it, else its best-scoring other contribution sentence (not one added "
        "'also'/'further'): an abstract often says what the work is, then what it holds ('FooNet contains 2M …').",
    )
    compare_how_sentences: int = Field(
        default=3,
        ge=1,
        description="Compare tables: most method sentences in a work's 'How' cell (the one detailing its proposal, "
        "then its best-scoring ones).",
    )
    answer_role_sentences: int = Field(
        default=3,
        ge=0,
        description="How/why answers quote at least this many sentences of the role that answers them (method for "
        "'how …'; gap for a why-question about a shortcoming), the best-scoring ones, whatever their margin to the "
        "best sentence: a mechanism is spread over several method sentences. Fitted on dev.",
    )
    detailed_rows: int = Field(
        default=3000, ge=100, description="Sentences given the full (Python-level) scoring per question."
    )

    # --- answer plans ---
    evidence_abstracts: int = Field(
        default=3, ge=1, description="Single-paper questions: evidence is looked for in the top retrieved abstracts."
    )
    max_sentences: int = Field(default=3, ge=1, description="Most sentences quoted from one paper.")
    shape_max_sentences: dict[str, int] = Field(
        default_factory=lambda: {"how_why": 4, "fact": 4},
        description="Most sentences quoted from one paper, per question shape where it differs from max_sentences: "
        "a mechanism ('how does X …', 'why …') takes several steps (what it is, then how each part works), so how/why "
        "answers quote one more; so do general questions ('what does X do'), whose answer is often spread over "
        "two sentences. Sentences beyond max_sentences need extra_sentence_margin. Fitted on dev.",
    )
    extra_sentence_margin: float = Field(
        default=0.5,
        ge=0.0,
        description="A sentence beyond max_sentences (see shape_max_sentences) is quoted only when within this score "
        "of the best one. Fitted on dev.",
    )
    sentence_margin: float = Field(
        default=0.5, ge=0.0, description="Further sentences are quoted when within this score of the best one."
    )
    list_margin: float = Field(
        default=0.45,
        ge=0.0,
        description="List/summary answers: an abstract joins when its membership score (its best sentence's "
        "relevance, i.e. its score without the role bonus, plus list_coverage_weight times its topic coverage) is "
        "within this of the best abstract's. Fitted on dev (b/d/e/f).",
    )
    list_coverage_weight: float = Field(
        default=0.4,
        ge=0.0,
        description="List/summary/yes-no membership: weight of the paper's topic coverage (the idf-weighted share of "
        "the question's topic words it uses, see list_min_coverage) added to its best sentence's relevance. A paper "
        "using the topic's rare words is about it even when no single sentence restates the question; one sentence "
        "resembling the question in common words is not enough. Fitted on dev (b/d/e/f): membership F1 0.898 -> "
        "0.914.",
    )
    shape_list_margin: dict[str, float] = Field(
        default_factory=lambda: {"yes_no": 0.1},
        description="List_margin per question shape where it differs (also applied to the papers naming what the "
        "question names): 'is there a paper on X' is answered by the paper(s) clearly about X, not by every paper "
        "near it. Fitted on dev.",
    )
    list_min_coverage: dict[str, float] = Field(
        default_factory=lambda: {"list": 0.3, "yes_no": 0.3, "summary": 0.2},
        description="List, summary and yes/no answers: a paper joins only when it uses at least this share of the "
        "question's topic words, each weighted by its idf over the abstracts (rag.evidence.topic_coverage): a paper "
        "is listed for using the topic's rare words, not for a sentence that resembles the question in its common "
        "ones. Lower for overviews, whose topic is often several ('X and Y'), each paper about one. Not applied to "
        "the papers naming what the question names. Fitted on dev.",
    )
    contribution_lines: tuple[str, ...] = Field(
        default=("yes_no", "list", "summary"),
        description="Question shapes whose list lines quote, next to each paper's line, its best other contribution "
        "sentence: 'is there a paper on X' -> yes, and what that paper contributes; 'which papers …' -> each paper "
        "with what it contributes, not only the sentence sharing the question's words; an overview likewise. Fitted on "
        "dev.",
    )
    finding_lines: tuple[str, ...] = Field(
        default=("summary", "yes_no", "list"),
        description="Question shapes whose list lines also quote the paper's finding: its best-scoring result "
        "sentence, one stating what the work shows ('We show that …') first, when the line quotes none: an overview "
        "says what each work proposes and what it finds, not only the sentence sharing the question's words; so does "
        "'is there a paper on X' (yes, which, and what it found) and each line of 'which papers …'. Dev key facts "
        "(yes/no, list added): yes/no 0.825 -> 0.873, list 0.714 -> 0.735, no shape lower.",
    )
    detail_lines: tuple[str, ...] = Field(
        default=("yes_no",),
        description="Question shapes whose list lines also quote the sentence right after the paper's proposal when "
        "it details it (detail_roles), as single-paper answers to a general question do (core_shapes): 'is there a "
        "paper on X' -> yes, which work, what it proposes and what that is made of. Dev yes/no key facts 0.905 -> 0.921 "
        "(paraphrase 0.746 -> 0.754), 3.22 -> 3.70 sentences; validation yes/no 0.812 -> 0.823, paraphrase 0.656 -> "
        "0.667, overall 0.810 -> 0.812, no shape lower; regression 0.883 -> 0.893.",
    )
    topic_lines: tuple[str, ...] = Field(
        default=("list", "summary", "yes_no"),
        description="Question shapes whose list lines also quote the paper's sentence most about the question (its "
        "relevance, whatever its role) when the line does not: what the work contributes is quoted for its role, but "
        "what ties the paper to the topic asked about is often its opening or gap sentence ('Probabilistic "
        "neurosymbolic methods rely on weighted model counting …'), which the role bonus leaves out "
        "(rag.compose.extractive.topic_sentence). Dev key facts: list 0.646 -> 0.714, summary 0.780 -> 0.823, "
        "yes/no 0.810 -> 0.825; validation (held out): list 0.647 -> 0.719, summary 0.625 -> 0.664.",
    )
    contribution_margin: float = Field(
        default=0.25,
        ge=0.0,
        description="List answers quote a paper's contribution sentence when it scores within this of the paper's "
        "best sentence (else the best sentence).",
    )
    lowercase_name_zipf: float = Field(
        default=2.5,
        ge=0.0,
        description="A list question naming in lower case something the corpus always capitalises ('qwen', 'shapley') "
        "lists the papers naming it, as when typed with capitals, unless the name's words are English (in the word "
        "list or at least this frequent on the Zipf scale: 'gaussian', 'mixture-of-experts' are terms).",
    )
    list_member_weights: dict[str, float] = Field(
        default_factory=lambda: {"relevance": 0.5239, "relevance_gap": -4.1755, "own_relevance": -3.9898, "dense_mean": 2.9248, "coverage": 3.6807, "coverage_gap": -1.9448, "retrieval_rank": -1.7091, "summary": 0.635, "yes_no": -2.3617, "facet_relevance": -0.7758, "facet_gap": -6.6347, "own_facet_relevance": 5.4195},
        description="List/summary/yes-no answers: weights of the membership model (rag.membership.FEATURES: the "
        "paper's best sentence relevance and its gap to the best paper's, the best relevance of its own "
        "contribution/method/result sentences, the mean dense similarity of its sentences, its topic coverage and "
        "the gap to the best paper's, its retrieval rank (log), the question's shape, and its best cosine with a facet "
        "of the topic and its gap to the best paper on that facet: rag.membership.facet_similarities). A paper other "
        "than those naming "
        "what the question names is cited when the model's probability is at least list_member_cut. Empty: the "
        "single-score cut (list_margin, list_floor, list_min_coverage) instead. Fitted on dev by "
        "`python -m eval.fit_membership` (class-balanced logistic regression; the cut on leave-one-blind-set-out "
        "probabilities). Out of fold on dev's 181 list/summary/yes-no questions chosen by it: citation P 0.883 -> "
        "0.906, R 0.910 -> 0.940, all gold cited 0.801 -> 0.856 (the single-score rule in-sample); held out on "
        "set m before it joined dev: list cit R 0.650 -> 0.817, summary 0.717 -> 0.750. Refitted with the facet "
        "features on dev's 602 list/summary/yes-no questions (x, y, z, a included), leave-one-set-out at cut 0.65: "
        "without them P 0.867, R 0.903, all gold cited 0.776; with them 0.870, 0.912, 0.802. Refitted with "
        "own_facet_relevance (the facet cosine of the paper's contribution/method/result sentences alone: a paper "
        "naming the topic only in its setting is near it by a sentence about other work), leave-one-set-out at cut "
        "0.65: P 0.870 -> 0.876, R 0.912 -> 0.914, all gold cited 0.803 -> 0.808, F1 0.874 -> 0.878; dev list/summary "
        "cit P 0.890/0.844 -> 0.890/0.847, R 0.868/0.885 -> 0.866/0.884.",
    )
    list_member_bias: float = Field(default=2.908, description="The membership model's intercept (see "
                                    "list_member_weights).")  # fmt: skip
    list_member_cut: float = Field(
        default=0.65,
        ge=0.0,
        le=1.0,
        description="A paper joins a list/summary/yes-no answer when the membership model gives it at least this "
        "probability (the best-ranked paper when none does). Chosen on out-of-fold probabilities (see "
        "list_member_weights): the F1 optimum is 0.825 (P 0.924, R 0.872), 0.65 keeps dev list precision at the "
        "earlier model's while citing more of the gold (dev list/summary cit R 0.863/0.858 -> 0.868/0.885, P "
        "0.893/0.855 -> 0.890/0.844).",
    )
    list_member_candidates: int = Field(
        default=12,
        ge=1,
        description="The membership model considers this many papers, those whose best sentence is most relevant; "
        "gaps to the best paper are taken among them.",
    )
    facet_max_doc_share: float = Field(
        default=0.15,
        ge=0.0,
        le=1.0,
        description="List/summary/yes-no membership (facet_relevance, facet_gap: rag.membership.facet_similarities): "
        "a coordinated part of the topic ('clinical, diagnostics, medical imaging') is a facet of its own only when "
        "it holds a topic word at most this share of the abstracts use (or none does); 'either as the object of "
        "study or as an evaluation' names no facet.",
    )
    list_floor: float = Field(default=0.45, ge=0.0, description="... and scores at least this.")
    list_max: int = Field(default=10, ge=1, description="Most papers in a list or summary answer.")
    list_shortlist: int = Field(
        default=40,
        ge=1,
        description="List/summary answers: sentences are scored only in this many abstracts, the best of the "
        "fused (dense + BM25 chunk) ranking, so a large corpus is not scored sentence by sentence. At least "
        "list_max; the seeds' list answers are the same as with every abstract scored.",
    )
    overview_groups: int = Field(
        default=6,
        ge=1,
        description="A question about the whole collection ('what are the main themes of these papers?'): the "
        "papers are grouped by meaning into at most this many themes (rag.themes), one line per theme.",
    )
    overview_named: int = Field(
        default=3, ge=1, description="Papers named in each theme's line, those nearest its centre."
    )
    overview_label_words: int = Field(
        default=3, ge=1, description="Words describing each theme: those most distinctive of its papers."
    )
    nearest: int = Field(default=3, ge=1, description="Nearest abstracts named when abstaining.")
    min_verified_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="A generated answer with a smaller share of verified sentences is replaced by the extractive one.",
    )
    more_sentences: int = Field(default=3, ge=1, description="Sentences a 'tell me more' follow-up adds.")
    polar_detail_mass: float = Field(
        default=1.0,
        ge=0.0,
        description="A yes/no question about one work ('Does FooNet require fine-tuning?') also quotes the "
        "sentence holding most of its topic words, each counting one over the number of the abstract's sentences "
        "using it (rag.compose.extractive.with_polar_detail), when that sentence holds at least this much and no "
        "quoted one holds as much: the detail asked about may be stated in a sentence that little resembles the "
        "question as a whole ('… without model fine-tuning'). 0 turns it off.",
    )
    new_subject_df_share: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="A short follow-up that points at nothing ('how do FooNets work?', 'what about aptamers?') starts a "
        "new subject, rather than asking about the last answer's papers, when it holds a word of its own that neither "
        "those papers nor the previous question use, that at most this share of the abstracts use (a topic, not an "
        "everyday word of abstracts such as 'baselines'), and that is rare in English (new_subject_rarity); not when "
        "it asks for a detail of a kind (a value, a time, hardware, a licence, code: 'what about latency?') or the word "
        "is what no abstract is about (only in method or result sentences: 'any ablations?').",
    )
    new_subject_rarity: float = Field(
        default=0.35,
        ge=0.0,
        le=1.0,
        description="How rare in English (rag.abstain.english_rarity, see rarity_zipf_scale) the word of a follow-up "
        "that starts a new subject must be (see new_subject_df_share): 0.35 is a Zipf frequency of about 4.5 or less "
        "('calibration', 'aptamers', 'protein'; not 'faster', 'video').",
    )
    each_sentences: int = Field(
        default=2,
        ge=1,
        description="Sentences quoted per work for a follow-up asking something of several earlier works together "
        "('do both release code?', 'which one is faster?'): its best ones for that ask.",
    )
    similar_papers: int = Field(
        default=3,
        ge=1,
        description="Papers an 'anything similar?' follow-up lists: the others closest by meaning to those just "
        "discussed (rag.similar).",
    )
    more_result_sentences: int = Field(
        default=1,
        ge=0,
        description="Of those, at least this many result sentences when the paper has unquoted ones: more about a "
        "work says what it finds, not only how. Fitted on dev.",
    )

    # --- abstention: one score, one threshold ---
    abstain_threshold: float = Field(
        default=0.60,
        ge=0.0,
        le=1.0,
        description="Abstain when the abstention score (0-1, higher = less answerable) is at least this.",
    )
    abstain_bias: float = Field(default=-3.71, description="Log-odds of abstaining with no signal at all.")
    w_unknown_name: float = Field(
        default=2.87, description="Log-odds added per subject name that is close to no name in the corpus."
    )
    w_missing_name: float = Field(
        default=2.87,
        description="Log-odds added per linked subject name the answering abstract(s) do not mention.",
    )
    w_focus_missing: float = Field(
        default=2.89,
        description="Log-odds added times the share of the asked-about words (what is counted or named) that the "
        "answering abstract does not contain.",
    )
    w_number_missing: float = Field(
        default=0.43, description="Log-odds added when a number is asked for and no quoted sentence holds one."
    )
    w_similarity: float = Field(
        default=0.00,
        description="Log-odds added per unit the best evidence similarity falls below similarity_floor (and "
        "removed per unit above it). Not used for questions the encoder cannot read (not English).",
    )
    similarity_floor: float = Field(
        default=0.42, description="MiniLM similarity of the best evidence sentence at which the signal is neutral."
    )
    w_topic_missing: float = Field(
        default=0.67,
        description="Log-odds added times the share of the question's topic words the answering abstract lacks "
        "(though some abstract uses them).",
    )
    w_topic_unknown: float = Field(
        default=0.64,
        description="Log-odds added times the share of the question's topic words that no abstract uses at all, each "
        "counting by its English rarity (rag.abstain.rarity_share, see rarity_zipf_scale): an everyday word of a "
        "paraphrase no abstract happens to use weighs little, a term of a field the corpus lacks much.",
    )
    w_list_shape: float = Field(
        default=2.87,
        description="Log-odds added for list, summary and yes/no questions (their signals come from the best of "
        "many papers, so they read differently).",
    )
    w_linked: float = Field(
        default=0.00, description="Log-odds added when the question names a work the corpus has (linked exactly)."
    )
    w_phrase_missing: float = Field(
        default=1.50,
        description="Log-odds added times the share of adjacent pairs of the question's detail words that no "
        "sentence of the answering abstract(s) holds near each other (the topic is not treated there as a phrase), "
        "each unseen pair weighed by the English rarity of its rarer word (see rarity_zipf_scale): a paraphrase's "
        "pair of everyday words weighs less than a pair holding a term of a field.",
    )
    w_topic_unknown_list: float = Field(
        default=1.31,
        description="Log-odds added, for list, summary and yes/no questions, times the share of the question's "
        "topic words that no abstract uses (on top of w_topic_unknown): no paper can be listed on such a topic.",
    )
    w_topic_garbled: float = Field(
        default=0.00,
        description="Log-odds added times the share of the question's topic words no abstract uses that look like "
        "typos of a known word (see typo_common_zipf); kept apart from w_topic_unknown so a typo is not read as a "
        "topic the corpus lacks. Fitted on dev.",
    )
    w_similarity_list: float = Field(
        default=3.29,
        description="Log-odds added, for list, summary and yes/no questions, per unit the best evidence similarity "
        "(the best sentence of any shortlisted paper) falls below similarity_floor (on top of w_similarity): when "
        "even the best of many papers is far from the question, no paper is on its topic. Fitted on dev.",
    )
    w_names_missing: float = Field(
        default=4.12,
        description="Log-odds added when the question asks for names (which datasets, models, baselines…) and no "
        "quoted sentence of the answering abstract names anything the question does not. Fitted on dev.",
    )
    w_value_missing: float = Field(
        default=4.32,
        description="Log-odds added when the question asks for a value (a count, or a measure such as an accuracy, "
        "FID or agreement) and no quoted sentence of the answering abstract states a number within a few words of "
        "what is counted or measured. Fitted on dev.",
    )

    w_slot_missing: float = Field(
        default=2.11,
        description="Log-odds added, for a question asking for a value or for names (not a list or comparison), "
        "times 1 - the idf-weighted share of its detail words held by the answering abstract's best sentence that "
        "holds such an answer (a number the question does not state, a name it does not give). Fitted on dev.",
    )
    w_slot_near_missing: float = Field(
        default=0.00,
        description="Log-odds added, for a question asking for a value or for names (not a list or comparison), "
        "times 1 - the idf-weighted share of its detail words within slot_window words of a word holding such an "
        "answer in the answering abstract (the best such stretch): the answer said next to what is asked, not "
        "elsewhere in its sentence ('on real graphs, FooNet reaches a 10x speedup over BarLib' names no graph). "
        "Fitted on dev.",
    )
    slot_window: int = Field(
        default=6,
        ge=1,
        description="How many words on either side of an answer word (a name, a value) count as said of it, for "
        "w_slot_near_missing.",
    )
    w_type_missing: float = Field(
        default=5.31,
        description="Log-odds added when a single-paper question asks for a duration, a licence, named hardware, "
        "whether code or data are released, or a value (rag.question.answer_type), or asks anywhere for a model size, "
        "a speed, a place, a setting, a study with people, a run on real hardware, the layers something sits in, a "
        "licence or a cost in money (rag.question.details_asked), and no sentence of the answering abstract states "
        "one, or asks the members of a counted set by name that the abstract only counts (rag.question."
        "counted_unnamed). Fitted on dev alone, the "
        "other weights and the threshold kept (3.24 -> 5.31; it fires on no answerable dev question, so only the "
        "regularisation bounds it).",
    )
    w_topic_rare_missing_list: float = Field(
        default=2.38,
        description="Log-odds added, for list, summary and yes/no questions, times the share of the question's "
        "topic words the best paper lacks, each weighted by its idf (a word no abstract uses: the largest idf times "
        "its English rarity, see rarity_zipf_scale). Fitted on dev.",
    )
    w_topic_rare_missing_terse: float = Field(
        default=7.13,
        description="Log-odds added, for a terse keyword query (not a list, summary, yes/no or compare), times the "
        "same idf- and rarity-weighted share of its topic words that its best paper lacks. Fitted on dev.",
    )
    w_topic_matched: float = Field(
        default=-1.46,
        description="Log-odds added, for list, summary and yes/no questions, times the idf mass of the question's "
        "topic words that the best paper holds (in units of the largest idf; rag.abstain.matched_mass). Fitted on "
        "dev; negative: the rare words a plain-language description shares with one paper are evidence that the "
        "paper is on its topic.",
    )
    w_unknown_name_list: float = Field(
        default=2.04,
        description="As w_unknown_name, for list, summary and yes/no questions (w_unknown_name is then not used): a "
        "name close to no corpus name is there often the topic asked about, weighed against the list's other "
        "evidence. Fitted on dev.",
    )
    w_linked_list: float = Field(
        default=-1.64,
        description="As w_linked, for list, summary and yes/no questions (w_linked is then not used): a name of the "
        "corpus spelt exactly, whose papers are the list. Fitted on dev.",
    )
    w_focus_missing_list: float = Field(
        default=1.44,
        description="As w_focus_missing, for list, summary and yes/no questions (w_focus_missing is then not used): the "
        "share of the question's topic words the best paper (the cited papers of a summary) lacks. Fitted on dev.",
    )
    w_phrase_missing_list: float = Field(
        default=5.73,
        description="As w_phrase_missing, for list, summary and yes/no questions (w_phrase_missing is then not used): "
        "the share of adjacent detail-word pairs no sentence of the cited papers holds near each other, read per "
        "coordinated part of the topic ('X or Y': its best part) with each unseen pair weighed by the English rarity "
        "of its commoner word (rag.answering.parts_unseen). Fitted on dev.",
    )
    w_topic_matched_any: float = Field(
        default=-1.01,
        description="Log-odds added, for list, summary and yes/no questions, times the idf mass of the question's "
        "topic words held by the cited paper holding the most (as w_topic_matched, which reads the first cited "
        "paper): the paper on the topic is not always the one whose line comes first. Fitted on dev (negative).",
    )
    w_topic_peak: float = Field(
        default=-0.228,
        description="Log-odds added, for list, summary and yes/no questions, times how far the shortlisted paper most "
        "similar to the question's topic (its sentences most like it, see topic_peak_sentences) stands above the "
        "median of the shortlisted papers (see list_shortlist). A topic some paper treats lifts that paper out of "
        "its neighbours whatever the question's wording; an absent topic leaves them level. Not used when the "
        "encoder cannot read the question. Counted in units of topic_peak_unit. Fitted on dev (negative).",
    )
    meaning_peak_low: float = Field(
        default=0.10,
        description="For list, summary and yes/no questions (a 'Which paper …?' question's screen included): the "
        "question_peak (how far the retrieved paper most similar to the whole question stands above the median of "
        "the papers retrieved with it, a cosine gap) at or below which the words its best paper lacks count in full "
        "(focus_list, phrase_list, topic_rare_list); above it they count less, down to nothing at meaning_peak_high. "
        "A question in other words than its paper's sets those signals off however well it describes the paper, "
        "while its meaning singles the paper out; an absent topic leaves the nearest papers level (dev's "
        "unanswerable list-read questions: median 0.065, 90th percentile 0.117; answerable paraphrases read so: "
        "median 0.149). Set with meaning_peak_high on dev: false abstention 26 -> 19 of 1,359 answerable, "
        "abstention 323 -> 321 of 382 unanswerable at the fitted weights.",
    )
    described_work_low: float = Field(
        default=8.0,
        description="For list, summary and yes/no questions asking for one work by what it does or finds ('which work "
        "shows that …', 'is there a paper showing …', 'any study that …': rag.question.described_work_words): the "
        "number of content words of that description at or below which the words its best paper lacks count in full "
        "(focus_list, phrase_list, topic_rare_list); above it they count less, down to nothing at "
        "described_work_high. A long description of a finding or mechanism paraphrases one paper, which need not "
        "use its words; a short one ('is there a paper on FooNet pruning?') names a topic the papers must treat. "
        "Dev's unanswerable questions so worded describe in 6-8 words, the answerable ones refused as lists in "
        "10-21: false abstention 24 -> 15 of 1,787 answerable, abstention 422 -> 422 of 489 unanswerable.",
    )
    described_work_high: float = Field(
        default=12.0,
        description="The description length (content words) at or above which the words the best paper lacks no longer "
        "count (see described_work_low); described_work_low >= described_work_high makes it a step at "
        "described_work_high, and a high value (100) turns it off.",
    )
    meaning_peak_high: float = Field(
        default=0.25,
        description="The question_peak at or above which the words a list, summary or yes/no question's best paper "
        "lacks no longer count (see meaning_peak_low); meaning_peak_low >= meaning_peak_high turns the gate into a "
        "step at meaning_peak_high, and a high value (1.0) turns it off.",
    )
    topic_peak_sentences: int = Field(
        default=2,
        ge=0,
        description="topic_peak reads each shortlisted paper by the mean similarity of its this many sentences most "
        "similar to the question's topic said alone (rag.question.topic_phrase: 'help doctors read medical scans' "
        "of 'Which papers help doctors read medical scans?'; one more encoding per list, summary or yes/no "
        "question): a paper on the topic has a few sentences saying it, in whatever words, among others on its "
        "setting and details, and the request's own words ('which papers', 'an overview of the work on') say "
        "nothing of any topic. How well topic_peak alone tells dev's answerable list/summary/yes-no questions (183) "
        "from its unanswerable ones read so (84), as AUC: 0.831 -> 0.912; on 47 lay-worded probes about the seeds "
        "('papers about finding new medicines', 'papers about self-driving cars'): 0.753 -> 0.869. 0: the mean "
        "similarity of all its sentences to the whole question.",
    )
    topic_peak_unit: float = Field(
        default=0.1,
        gt=0.0,
        description="The cosine gap that counts as one unit of the topic_peak signal (w_topic_peak's log-odds are "
        "per unit). Its gaps run 0 to about 0.4 while the other signals are shares of 0..1, and the fit's L2 penalty "
        "holds a signal of a small scale to a small weight whatever it tells apart; in units of 0.1 it is on the "
        "others' scale, so the fit weighs it by what it separates (leave-one-writer-set-out abstention 0.878 -> "
        "0.897 at false abstention 0.036 on dev + regression).",
    )
    w_described_missing: float = Field(
        default=0.00,
        description="Log-odds added, for a single-paper question naming its work by a short description as a term "
        "('the paper on X', 'the X study': rag.question.work_description; see described_max_words), times the mass of "
        "the description's words the answering abstract lacks, each weighing its idf times its English rarity (see "
        "rarity_zipf_scale), in units of the largest idf, at most 1. Fitted on dev.",
    )
    w_aspect_missing: float = Field(
        default=0.00,
        description="Log-odds added, for a single-paper question asking what a work says about something ('what "
        "does FooNet report about X': rag.question.asked_aspect), times the mass of that aspect's words the answering "
        "abstract lacks, weighed as for w_described_missing. Fitted on dev.",
    )
    w_aspect_far: float = Field(
        default=2.47,
        description="Log-odds added, for a single-paper question asking what a work says about something ('what "
        "does FooNet report about X': rag.question.asked_aspect, at most described_max_words content words), per "
        "aspect_far_unit by which the aspect's best similarity to a sentence of the answering abstract falls below "
        "aspect_far_floor: the meaning of the aspect, not its words, is absent from the paper ('what does the hand "
        "pose paper say about sign language recognition'). Not used when the encoder cannot read the question, nor for a "
        "follow-up rewritten against the conversation. Fitted on dev (eval.fit_abstention's set procedure, the other "
        "weights kept).",
    )
    w_measure_absent: float = Field(
        default=2.24,
        description="Log-odds added, for a single-paper question asking a value, times the share of the words of the "
        "measure it asks ('what learning rate', 'the pass@1 of'; rag.question.value_asked) that the answering "
        "abstract never writes: it states no value of that measure. Fitted on dev (eval.fit_abstention's set "
        "procedure, the other weights and the threshold kept).",
    )
    w_topic_far: float = Field(
        default=0.58,
        description="Log-odds added per topic_far_unit by which the question's topic said alone (rag.question."
        "topic_phrase: its topic words as written, without the request's words) falls, by its meaning, below "
        "topic_far_floor at its closest sentence of the topic_far_papers best-ranked papers, times the English rarity "
        "of the phrase's rarest word (rag.abstain.english_rarity): a field's term the corpus lacks ('federated "
        "learning', 'music generation') is far from every sentence even when the whole question is near a paper by "
        "its framing words, while a lay paraphrase ('help doctors read scans') is far for its everyday words, which "
        "weigh little. Not used when the encoder cannot read the question. Fitted on dev (eval.fit_abstention's set "
        "procedure, the other weights kept; abstain_threshold raised 0.49 -> 0.60 with it, as the signal adds "
        "log-odds to most questions).",
    )
    topic_far_floor: float = Field(
        default=0.65,
        ge=-1.0,
        le=1.0,
        description="The similarity (MiniLM cosine) of the question's topic phrase to its closest sentence among the "
        "best-ranked papers under which w_topic_far counts (a topic some paper treats reaches about 0.6 and above).",
    )
    topic_far_unit: float = Field(
        default=0.1,
        gt=0.0,
        description="The cosine gap below topic_far_floor that counts as one unit of w_topic_far (as aspect_far_unit).",
    )
    topic_far_papers: int = Field(
        default=5,
        ge=0,
        description="How many of the best-ranked papers' sentences topic_far reads (0: the signal is off).",
    )
    aspect_far_floor: float = Field(
        default=0.45,
        ge=-1.0,
        le=1.0,
        description="The similarity (MiniLM cosine) of a question's asked aspect to the answering abstract's closest "
        "sentence under which w_aspect_far counts (an aspect the paper treats is stated by some sentence close to "
        "it, about 0.45 and above on dev).",
    )
    aspect_far_unit: float = Field(
        default=0.1,
        gt=0.0,
        description="The cosine gap below aspect_far_floor that counts as one unit of w_aspect_far (as "
        "topic_peak_unit: cosine gaps run to about 0.3 while the other signals are shares of 0..1).",
    )
    described_listed_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="A follow-up picking an earlier answer's paper by description ('the one on X') takes the earlier "
        "source X finds best only if its retrieval score for X is at least this share of the best paper's; below it "
        "X fits another paper far better, and the question means that best paper (rag.followup.resolve_described). "
        "Fused scores are min-max normalised, the best near 1: on the probes written for it a listed paper the description means scored 0.57-1 of the best, one merely of the same field 0.1-0.48.",
    )
    described_max_words: int = Field(
        default=4,
        ge=1,
        description="Longest work description (content words) read as a term for w_described_missing; a longer one "
        "paraphrases the work in the writer's own words, which its abstract need not use.",
    )
    rarity_zipf_scale: float = Field(
        default=7.0,
        gt=0.0,
        description="English rarity of a word no abstract uses, for w_topic_rare_missing_list and w_topic_unknown, and of "
        "the words of unseen word pairs, for w_phrase_missing (a pair counts by its rarer word) and w_phrase_missing_list "
        "(by its commoner word): 1 - its wordfreq "
        "Zipf frequency / this, clipped to 0..1 (\"anyone\" ~0.1, \"federated\" ~0.6, an invented word 1).",
    )

    gloss_rare_zipf: float = Field(
        default=3.0,
        ge=0.0,
        description="Chinese questions glossed by dictionary (rag.gloss.choose_sense): when the corpus uses none of a "
        "word's English senses, a first sense whose rarest word has an English wordfreq Zipf frequency below this "
        "gives way to the most common sense (失语症: 'aphasia', not 'aphemia').",
    )

    # --- typos among the question's unknown words (abstention only) ---
    typo_common_zipf: float = Field(
        default=2.0,
        ge=0.0,
        description="A word no abstract uses counts as a typo only when its wordfreq Zipf frequency in English is "
        "below this (real but absent words such as 'federated' or 'lidar' are above it).",
    )
    typo_edits: int = Field(
        default=1, ge=0, description="... and it is at most this many edits (adjacent swaps included) from a word "
        "of the corpus or the common English vocabulary. Also the edits within which the question's spelling is "
        "corrected to a corpus word (rag.lexicon.Lexicon.correct)."
    )
    typo_long_edits: int = Field(
        default=2, ge=0, description="Edits allowed instead for words of typo_long_chars letters or more."
    )
    typo_long_chars: int = Field(default=8, ge=1, description="Length from which typo_long_edits applies.")
    acronym_word_zipf: float = Field(
        default=4.0,
        ge=0.0,
        description="A word written in capitals (four letters or more) that the corpus never uses and whose "
        "lower-case form is rarer in English than this wordfreq Zipf frequency is read as an acronym the corpus "
        "lacks ('COCO', 'SQUAD': a signal for abstention), not as the English word; commoner ones ('NASA', 'USA', "
        "'HTTP') stay ordinary vocabulary.",
    )
    plain_name_neighbour_zipf: float = Field(
        default=1.5,
        ge=0.0,
        description="A word typed in lower case that neither English nor the corpus uses is read as a name the corpus "
        "lacks ('ecmwf': a signal for abstention) unless, among other checks, a word one edit from it has at least "
        "this wordfreq Zipf frequency in English ('shakierr' -> 'shakier': a typo).",
    )
    typo_context: bool = Field(
        default=True,
        description="Of two corpus words as many edits from a mistyped word, respell it as the one a sentence of the "
        "corpus holds with more of the question's other content words ('active 3d maping' -> 'mapping', not the more "
        "frequent 'making'); off: the word more abstracts use (rag.lexicon.Lexicon.correct).",
    )
    real_word_typos: bool = Field(
        default=True,
        description="Respell an English word no abstract uses that is one edit from a corpus word when a passage holds "
        "that corpus word with at least half of the question's other content words ('patent' -> 'patient' in a "
        "question about a virtual patient study; rag.lexicon.Lexicon.correct).",
    )
    typo_keep_zipf: float = Field(
        default=2.5,
        ge=0.0,
        description="A word of the question neither the corpus nor the tokenizer uses is respelt only when its "
        "wordfreq Zipf frequency is below this: 'scarring' or 'preset' are English words, not typos of 'scaling' or "
        "'present' (rag.lexicon.Lexicon.correct).",
    )
    typo_english_zipf: float = Field(
        default=3.0,
        ge=0.0,
        description="English words one slip from a mistyped word, with at least this wordfreq Zipf frequency, are "
        "candidates for its spelling next to the corpus's words ('decyaing' -> 'decaying'; rag.lexicon."
        "english_candidates); 10 or more: corpus words only.",
    )
    typo_keep_gain: float = Field(
        default=1.5,
        ge=0.0,
        description="A word English uses (Zipf at least typo_keep_zipf) is still respelt when one of the likeliest "
        "slips (typo_keep_cost) makes it of an English word at least this much Zipf more common ('recieve' -> "
        "'receive'; not 'preset' -> 'present', a dropped letter).",
    )
    typo_keep_cost: float = Field(
        default=0.6,
        ge=0.0,
        description="The likeliest slips, by rag.lexicon.typing_cost (two letters swapped, one doubled, a vowel or a "
        "doubled letter dropped cost 0.5-0.6), for typo_keep_gain.",
    )
    clipping_max_zipf: float = Field(
        default=3.5,
        ge=0.0,
        description="A lower-case word neither the corpus nor the tokenizer uses, rarer in English than this (wordfreq "
        "Zipf), is read as the corpus word it clips (rag.lexicon.Lexicon.clipped_word: 'eval' -> 'evaluation', "
        "'imgs' -> 'images', 'params' -> 'parameters') for spelling, linking, search and abstention; a commoner "
        "word is English of its own.",
    )
    clipping_min_chars: int = Field(
        default=3,
        ge=2,
        description="Shortest clipped word read as the corpus word it clips ('mem' -> 'memory'); a shorter one "
        "('ft') clips too many words.",
    )
    clipping_share: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="A clipped word is read as a corpus word only when that word's family (the words of one stem: "
        "'evaluate', 'evaluation', 'evaluated') holds at least this share of the corpus frequency of all the words it "
        "may clip: 'quant' (quantization? quantitative? quantum?) stays as typed.",
    )
    typo_short_cost: float = Field(
        default=0.9,
        ge=0.0,
        description="A word shorter than fuzzy_min_chars is respelt only by a slip costing at most this "
        "(rag.lexicon.typing_cost, typo_english_cost included): many words are one edit from a short one ('RMSE' is "
        "not 'RISE').",
    )
    typo_english_cost: float = Field(
        default=0.25,
        ge=0.0,
        description="What an English spelling the corpus lacks costs over a corpus word as likely a slip, in edits "
        "(rag.lexicon.typing_cost): 'agens' is the corpus's 'agents', not 'agnes'.",
    )
    name_case_zipf: float = Field(
        default=3.5,
        ge=0.0,
        description="A corpus name typed in lower case is written as the corpus writes it ('ssm' -> 'SSM') unless it is "
        "an English word of the tokenizer or has at least this wordfreq Zipf frequency ('flux', 'rise').",
    )
    typo_min_chars: int = Field(
        default=4,
        ge=2,
        description="Shortest word the question's spelling is corrected for (rag.lexicon.Lexicon.correct): a word of "
        "fuzzy_min_chars letters or more is also matched to corpus words by rapidfuzz ratio; a shorter one only "
        "within typo_edits edits ('taks' -> 'tasks').",
    )

