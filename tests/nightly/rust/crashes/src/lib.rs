//! A test whose executable dies: `rankcheck nightly` must name it.

#[cfg(test)]
mod tests {
    #[test]
    fn aborts() {
        std::process::abort();
    }
}
