"""verify.experiments.imdb.preprocess: the paper's cleaning steps, stopwords, lemmas, vocabulary and encoding (known answers)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.core.numbers import InputError
from verify.experiments.imdb.preprocess import (PAD, PreprocessOptions, build_vocabulary, clean_text, encode,
                                                stopword_list, tokenize)


@pytest.mark.parametrize("text, expected", [
    ("see http://x.org/a?b=1 and www.y.com now", "see  and  now"),  # 3 spaces squash to 2 (step 4,
    ("end.<br /><br />Next", "end  Next"),             # tags become spaces: words stay apart
    ("café naïve", "caf nave"),                        # non-ASCII removed
    ("don't, stop! (ok)", "dont stop ok"),             # punctuation removed
    ("top10 of 2009", "top of "),                      # digits removed
    ("sooooo goood!!!", "soo good"),                   # runs of 3+ squashed to 2
    ("snake_case", "snakecase"),                       # underscore is punctuation too
])
def test_clean_text_known_answers_of_the_earlier_cleaning(text, expected):
    assert clean_text(text, "delete-punctuation") == expected


LEGACY = PreprocessOptions(cleaning="delete-punctuation")


def test_tokenize_keeps_case_and_drops_nltk_stopwords():
    words = tokenize("The movies were GREAT and I loved the actors.<br />Worst ending though!", LEGACY)
    # "The", "I" are capitalised, so the case-sensitive NLTK list keeps them (as the paper did);
    # only plurals are lemmatised (the paper's WordNet noun lemmas), so "loved", "Worst" stay.
    assert words == ["The", "movie", "GREAT", "I", "loved", "actor", "Worst", "ending", "though"]


def test_lemma_modes():
    text = "stories was worst enjoyed gives"
    for cleaning in ("authors", "delete-punctuation"):
        assert tokenize(text, PreprocessOptions(cleaning=cleaning)) == ["story", "worst", "enjoyed", "give"]
        assert tokenize(text, PreprocessOptions(lemmas="all", cleaning=cleaning)) == ["story", "bad", "enjoy", "give"]
        assert tokenize(text, PreprocessOptions(lemmas="none", cleaning=cleaning)) == ["stories", "worst", "enjoyed",
                                                                                        "gives"]


def test_lowercase_option_removes_capitalised_stopwords():
    words = tokenize("The movies were GREAT and I loved it", PreprocessOptions(lowercase=True,
                                                                               cleaning="delete-punctuation"))
    assert words == ["movie", "great", "loved"]


def test_lemma_keeps_the_writers_case():
    assert tokenize("Movies movies MOVIE", LEGACY) == ["Movie", "movie", "MOVIE"]
    # WordNet (the authors' lemmatiser) looks words up as written: capitalised words stay.
    assert tokenize("Movies movies MOVIES") == ["Movies", "movie", "MOVIES"]


@pytest.mark.parametrize("text, expected", [
    ("see http://x.org/a?b=1 and www.y.com now", "see  and  now"),
    ("end.<br /><br />Next", "end Next"),               # tags deleted, the full stop becomes a space
    ("end<br />Next", "endNext"),                        # ... so words on either side of a bare tag join
    ("café naïve", "caf nave"),                          # non-ASCII deleted
    ("don't, stop! (ok)", "don t  stop  ok "),           # punctuation becomes a space (runs squash to 2)
    ("well-made snake_case", "well made snake case"),
    ("top10 of 2009", "top of "),
    ("sooooo goood!!!", "soo good  "),
])
def test_authors_cleaning_known_answers(text, expected):
    assert clean_text(text, "authors") == expected


def test_authors_cleaning_drops_contractions_and_stopwords_that_come_back_after_lemmas():
    text = "I don't think he's great, it's wellmade. You cannot miss it, gonna love it! He doesn't."
    assert tokenize(text) == ["I", "think", "great", "wellmade", "You", "miss", "gon", "na", "love", "He"]
    # The earlier cleaning glued the contractions into words and kept "cannot".
    assert tokenize(text, LEGACY) == ["I", "dont", "think", "he", "great", "wellmade", "You", "cannot", "miss",
                                      "gonna", "love", "He", "doesnt"]


def test_recorded_options_fill_missing_keys_with_the_earlier_cleaning_and_refuse_unknown_ones():
    assert PreprocessOptions.from_record({"lowercase": False, "stopwords": "nltk", "lemmas": "plural"}) == LEGACY
    assert PreprocessOptions.from_record(PreprocessOptions().to_json_dict()) == PreprocessOptions()
    with pytest.raises(InputError, match="unknown preprocessing setting stemming "):
        PreprocessOptions.from_record({"lemmas": "plural", "stemming": True})
    with pytest.raises(InputError, match="unknown preprocessing settings spelling, stemming "):
        PreprocessOptions.from_record({"lemmas": "plural", "stemming": True, "spelling": True})
    with pytest.raises(InputError, match="expected an object"):
        PreprocessOptions.from_record(["lemmas"])
    with pytest.raises(InputError, match="cleaning"):
        PreprocessOptions(cleaning="spaces")


def test_stopword_lists():
    nltk = stopword_list("nltk")
    assert len(nltk) == 179 and "the" in nltk and "not" in nltk
    # The reason nltk is the default: stop-words' list would delete the paper's top sentiment words.
    assert "great" not in nltk and "great" in stopword_list("stop-words")
    assert stopword_list("none") == frozenset()
    with pytest.raises(InputError):
        PreprocessOptions(stopwords="spacy")


def test_vocabulary_by_frequency_ties_by_first_occurrence_padding_zero():
    vocabulary = build_vocabulary([["b", "a", "c"], ["a", "c", "d"], ["c"]])
    assert vocabulary.words == (PAD, "c", "a", "b", "d")
    assert vocabulary.id(PAD) == 0 and vocabulary.id("c") == 1 and vocabulary.id("zzz") is None


def test_encode_truncates_and_pads_at_the_end():
    vocabulary = build_vocabulary([["x", "y", "z"]])
    ids = encode([["x", "y", "z", "x"], ["z"]], vocabulary, length=3)
    assert ids.dtype == np.int32
    assert ids.tolist() == [[1, 2, 3], [3, 0, 0]]
    with pytest.raises(InputError, match="'w' is not in the vocabulary"):
        encode([["w"]], vocabulary, length=3)
