//! Deliberately broken plugins (being written).
