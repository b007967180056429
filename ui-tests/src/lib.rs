//! Compile-fail (`tests/ui`) and compile-and-run (`tests/pass`) tests of the Blitz macros,
//! driven by trybuild from `tests/ui.rs`, plus behavioural tests on a started pool.
