//! Runs the Python package's tests (`engine/python/tests`, pytest) with the Python that has
//! the package installed: `THRONG_PYTHON_PACKAGE`, else the tests' Python. .ci/run builds the
//! wheel, installs it in a fresh virtual environment and sets both that variable and
//! `THRONG_REQUIRE_PYTHON_PACKAGE`, so there a missing package fails; elsewhere the test is
//! skipped with what to do. The command-line parity tests get this build's `throng`.

use std::process::Command;

use crate::common::skip;

#[test]
fn the_python_packages_tests_pass() {
    let python = std::env::var("THRONG_PYTHON_PACKAGE").unwrap_or_else(|_| crate::common::python());
    let has = Command::new(&python)
        .args(["-c", "import throng, pytest, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os("THRONG_REQUIRE_PYTHON_PACKAGE").is_none(),
            "THRONG_REQUIRE_PYTHON_PACKAGE is set but `{python} -c 'import throng, pytest, numpy'` fails"
        );
        skip(
            "the_python_packages_tests_pass",
            &format!(
                "`{python} -c 'import throng, pytest, numpy'` fails; install the package (docs/python.md: \
                 `pip install ./engine/python pytest pandas pedpy`) and set THRONG_PYTHON_PACKAGE to that Python"
            ),
        );
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "engine/python/tests"])
        .current_dir(root)
        .env("THRONG_BIN", env!("CARGO_BIN_EXE_throng"))
        .output()
        .expect("pytest runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{text}");
    assert!(text.contains(" passed"), "pytest ran no test:\n{text}");
}
