//! Edition 2018 code using the macros (see the tests).
