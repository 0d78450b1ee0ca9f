"""Cache keys change with the code, not only with the version (hipport.identity)."""
import os

from hipport.identity import code_identity, identity_of


def _package(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not code\n")
    return tmp_path


def test_same_code_same_identity(tmp_path):
    package = _package(tmp_path)
    assert identity_of(str(package)) == identity_of(str(package))


def test_an_edited_module_changes_the_identity(tmp_path):
    package = _package(tmp_path)
    before = identity_of(str(package))
    (package / "sub" / "b.py").write_text("y = 3\n")
    os.utime(package / "sub" / "b.py", ns=(1, 1))
    assert identity_of(str(package)) != before


def test_a_new_module_changes_the_identity(tmp_path):
    package = _package(tmp_path)
    before = identity_of(str(package))
    (package / "c.py").write_text("")
    assert identity_of(str(package)) != before


def test_other_files_do_not_count(tmp_path):
    package = _package(tmp_path)
    before = identity_of(str(package))
    (package / "notes.txt").write_text("edited notes\n")
    assert identity_of(str(package)) == before


def test_the_installed_identity_starts_with_the_version():
    from hipport import __version__
    assert code_identity().startswith(__version__ + "+")
