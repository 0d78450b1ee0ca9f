"""engine/case_labels.py: which names are a case label's whole value, and what replaces the label."""

from __future__ import annotations

from hipport.engine.case_labels import absent_case_edit, case_label_span


def _span(source: bytes, name: bytes):
    start = source.index(name)
    return case_label_span(source, start, start + len(name))


def test_a_plain_label_spans_case_to_colon():
    source = b"switch (s) {\n  case  CUFFT_NVSHMEM_FAILURE :\n    return 1;\n}\n"
    start, end = _span(source, b"CUFFT_NVSHMEM_FAILURE")
    assert source[start:end] == b"case  CUFFT_NVSHMEM_FAILURE :"


def test_names_that_are_not_a_whole_case_value_are_left_alone():
    assert _span(b"int x = CUFFT_NVSHMEM_FAILURE;\n", b"CUFFT_NVSHMEM_FAILURE") is None
    assert _span(b"case CUFFT_NVSHMEM_FAILURE + 1:\n", b"CUFFT_NVSHMEM_FAILURE") is None
    assert _span(b"case CUFFT_NVSHMEM_FAILURE::x:\n", b"CUFFT_NVSHMEM_FAILURE") is None
    assert _span(b"showcase CUFFT_NVSHMEM_FAILURE:\n", b"CUFFT_NVSHMEM_FAILURE") is None


def test_the_label_becomes_a_comment_that_keeps_its_text():
    source = b"  case CUSOLVER_STATUS_INVALID_LICENSE: return 0;\n"
    span = _span(source, b"CUSOLVER_STATUS_INVALID_LICENSE")
    edit, message = absent_case_edit(source, span, "CUSOLVER_STATUS_INVALID_LICENSE", "cuSOLVER")
    assert edit.text == b"/* case CUSOLVER_STATUS_INVALID_LICENSE: (hipport: HIP has no counterpart) */"
    assert "never returns it" in message


def test_a_label_split_over_lines_keeps_its_lines():
    source = b"  case\n  CUFFT_NVRTC_FAILURE /* new in 11 */\n  :\n"
    span = _span(source, b"CUFFT_NVRTC_FAILURE")
    assert span is None  # a comment between the name and the colon: not a plain label
    source = b"  case\n  CUFFT_NVRTC_FAILURE\n  :\n"
    span = _span(source, b"CUFFT_NVRTC_FAILURE")
    edit, _ = absent_case_edit(source, span, "CUFFT_NVRTC_FAILURE", "cuFFT")
    assert edit.text.count(b"\n") == 2 and edit.text.startswith(b"/* case\n")
