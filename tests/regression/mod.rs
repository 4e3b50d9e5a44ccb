//! Regression tests: each pins one specific bug that was found and fixed, and is named after the
//! behaviour the bug broke. The test's comment says what went wrong.

mod doorway;
mod steering;
