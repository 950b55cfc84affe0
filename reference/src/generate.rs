//! A generator of small well-formed `.rk` programs (to come).
