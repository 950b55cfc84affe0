//! `Thread::name` is std's: the given name, `main` for the test's own
//! thread, `None` for an unnamed one. Reports number threads apart.

use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

#[test]
fn a_thread_is_called_by_the_name_it_was_given() {
    Builder::new().seed(1).runs(20).check(|| {
        let producer = thread::Builder::new()
            .name("producer".into())
            .spawn(|| thread::current().name().map(str::to_owned))
            .unwrap();
        assert_eq!(producer.thread().name(), Some("producer"));
        assert_eq!(producer.join().unwrap().as_deref(), Some("producer"));
        let unnamed = thread::spawn(|| thread::current().name().is_none());
        assert_eq!(unnamed.thread().name(), None);
        assert!(unnamed.join().unwrap());
        assert_eq!(thread::current().name(), Some("main"));
    });
}
