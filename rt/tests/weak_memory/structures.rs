//! Lock-free structures with a wrong ordering.
