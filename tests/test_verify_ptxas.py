"""ptxas errors in the verify join: nvcc's assembler rejects the PTX it generated and names no
source line, so only a finding that binds the unit to one HIP platform (platform_codes in
rules/verify/libraries.toml: HP441) explains one; without it the unit stays a port fault."""
from __future__ import annotations

import pytest
from test_verify_join import failed, finding, make_tree, verdict_of

from hipport.ruleset.loader import load_rules
from hipport.verify.diag import first_error
from hipport.verify.libraries import library_table

PTXAS = (
    "ptxas /tmp/tmpxft_0001_00000000-6_k.ptx, line 209; error   : Instruction 'vote' without '.sync' is not "
    "supported on .target sm_70 and higher from PTX ISA version 6.4\n"
    "ptxas fatal   : Ptx assembly aborted due to errors\n"
)
SOURCE = "#include <hip/hip_runtime.h>\n__global__ void k(int *o, int p) { o[0] = __ballot(p); }\n"


@pytest.fixture(scope="module")
def libraries():
    return library_table(load_rules([]))


def test_first_error_reads_a_ptxas_error_with_no_source_location():
    error = first_error(PTXAS)
    assert error is not None
    assert (error.file, error.line, error.locations) == ("/tmp/tmpxft_0001_00000000-6_k.ptx", 209, ())
    assert error.message.startswith("Instruction 'vote' without '.sync'")


def test_a_ptxas_error_is_explained_by_an_amd_only_finding(tmp_path, libraries):
    found = [finding("HP211", 2, "__ballot_sync", "warning"), finding("HP441", 2, "__ballot_sync", "warning")]
    out, report = make_tree(tmp_path, {"k.hip": SOURCE}, findings={"k.hip": found})
    v = verdict_of(out, report, libraries, "k.hip", failed(PTXAS))
    assert v.verdict == "expected"
    assert v.finding is not None and v.finding["code"] == "HP441"


def test_a_ptxas_error_without_a_platform_finding_is_a_port_fault(tmp_path, libraries):
    found = [finding("HP211", 2, "__ballot_sync", "warning")]  # semantic, but binds no platform
    out, report = make_tree(tmp_path, {"k.hip": SOURCE}, findings={"k.hip": found})
    assert verdict_of(out, report, libraries, "k.hip", failed(PTXAS)).verdict == "port-fault"
    out, report = make_tree(tmp_path / "clean", {"k.hip": SOURCE})
    v = verdict_of(out, report, libraries, "k.hip", failed(PTXAS))
    assert (v.verdict, v.clean) == ("port-fault", True)


def test_a_platform_finding_does_not_explain_an_error_at_a_source_line(tmp_path, libraries):
    found = [finding("HP441", 2, "__ballot_sync", "warning")]
    out, report = make_tree(tmp_path, {"k.hip": SOURCE + "int x = y;\n"}, findings={"k.hip": found})
    output = f"{out / 'k.hip'}:3:9: error: use of undeclared identifier 'y'\n"
    assert verdict_of(out, report, libraries, "k.hip", failed(output)).verdict == "port-fault"
