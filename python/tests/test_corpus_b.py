"""bench/corpus, the kernels at odd positions of its order (test_corpus.py has the others and says what
runs where; corpus_cases.py chooses the default tier's cases)."""
import pytest

import corpus_cases as C


@pytest.mark.parametrize("name,index,path", list(C.cases(1)))
def test_corpus_kernel(name, index, path, tessel_bin):
    C.check(name, index, path)
