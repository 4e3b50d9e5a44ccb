//! The Python package (`engine/python`): its pytest suite, run against the installed package.

mod package;
