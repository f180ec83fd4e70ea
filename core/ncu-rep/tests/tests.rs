//! Integration tests of the decoder against the fixture reports and the CSV pages ncu printed
//! from the same reports, and against the third-party reports beside the checkout, plus API and
//! robustness (mutation) tests. One test binary; each concern is a module under `tests/suite/`.

mod suite {
    mod api;
    mod corpus;
    mod details_page;
    mod raw_page;
    mod regs;
    mod robustness;
    mod support;
    mod synthetic;
}
