//! Ported from awslabs/shuttle 0.9.9, `tests/basic/atomic.rs` (Apache-2.0).
//! Changed: shuttle's types to rankcheck's; `check_dfs` to the helper in
//! `main.rs`; the `check_clock` assertions on shuttle's vector clocks (and
//! `me()`, shuttle's task id) are dropped, the rest of each test kept.
//! Skipped: `atomics_futures` (async: the future port); the `AtomicI128`
//! and `AtomicU128` instances of `int_tests!` (unstable in std).

use std::collections::HashSet;

use rankcheck::sync::atomic::*;
use rankcheck::sync::Arc;
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::check_dfs;

macro_rules! int_tests {
    ($name:ident, $ty:ident) => {
        mod $name {
            use super::*;

            #[test]
            fn store_store_reordering() {
                let observed_states = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_states_clone = observed_states.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));
                    let y = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            x.store(1, Ordering::SeqCst);
                            y.store(1, Ordering::SeqCst);
                            // A writer's clock is not affected by readers
                        })
                    };
                    let thd2 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            let y = y.load(Ordering::SeqCst);
                            let x = x.load(Ordering::SeqCst);
                            // A reader inherits the clock from writers
                            (x, y)
                        })
                    };

                    let thd1 = thd1.join().unwrap();
                    let thd2 = thd2.join().unwrap();
                    observed_states.lock().unwrap().insert((thd1, thd2));
                });

                let observed_states = Arc::try_unwrap(observed_states_clone)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                assert!(observed_states.contains(&((), (0, 0))));
                assert!(observed_states.contains(&((), (1, 0))));
                assert!(observed_states.contains(&((), (1, 1))));
                assert!(!observed_states.contains(&((), (0, 1))));
            }

            #[test]
            fn store_load_reordering() {
                let observed_states = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_states_clone = observed_states.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));
                    let y = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            let x = x.load(Ordering::SeqCst);
                            y.store(1, Ordering::SeqCst);
                            (x,)
                        })
                    };
                    let thd2 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            let y = y.load(Ordering::SeqCst);
                            x.store(1, Ordering::SeqCst);
                            (y,)
                        })
                    };

                    let thd1 = thd1.join().unwrap();
                    let thd2 = thd2.join().unwrap();
                    observed_states.lock().unwrap().insert((thd1, thd2));
                });

                let observed_states = Arc::try_unwrap(observed_states_clone)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                assert!(observed_states.contains(&((0,), (0,))));
                assert!(observed_states.contains(&((0,), (1,))));
                assert!(observed_states.contains(&((1,), (0,))));
                assert!(!observed_states.contains(&((1,), (1,))));
            }

            #[test]
            fn load_store_reordering() {
                let observed_states = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_states_clone = observed_states.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));
                    let y = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            x.store(1, Ordering::SeqCst);
                            let y = y.load(Ordering::SeqCst);
                            (y,)
                        })
                    };
                    let thd2 = {
                        let x = x.clone();
                        let y = y.clone();
                        thread::spawn(move || {
                            y.store(1, Ordering::SeqCst);
                            let x = x.load(Ordering::SeqCst);
                            (x,)
                        })
                    };

                    let thd1 = thd1.join().unwrap();
                    let thd2 = thd2.join().unwrap();
                    observed_states.lock().unwrap().insert((thd1, thd2));
                });

                let observed_states = Arc::try_unwrap(observed_states_clone)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                assert!(!observed_states.contains(&((0,), (0,)))); // would be allowed on x86
                assert!(observed_states.contains(&((0,), (1,))));
                assert!(observed_states.contains(&((1,), (0,))));
                assert!(observed_states.contains(&((1,), (1,))));
            }

            #[test]
            fn try_update() {
                let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_values_clone = observed_values.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        thread::spawn(move || {
                            x.store(1, Ordering::SeqCst);
                        })
                    };

                    let thd2 = {
                        let x = x.clone();
                        thread::spawn(move || {
                            x.store(2, Ordering::SeqCst);
                        })
                    };

                    let _val = x
                        .try_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(x + 5))
                        .unwrap();

                    // Note: since either thd1 or thd2 can overwrite the other,
                    // we can only check implications here

                    thd1.join().unwrap();
                    thd2.join().unwrap();

                    let x = Arc::try_unwrap(x).unwrap().into_inner();
                    observed_values_clone.lock().unwrap().insert(x);
                });

                let observed_values = Arc::try_unwrap(observed_values)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                assert_eq!(observed_values.len(), 4);
                assert!(observed_values.contains(&1));
                assert!(observed_values.contains(&2));
                assert!(observed_values.contains(&6));
                assert!(observed_values.contains(&7));
            }

            #[test]
            fn compare_exchange() {
                let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_values_clone = observed_values.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        thread::spawn(move || {
                            x.store(1, Ordering::SeqCst);
                        })
                    };

                    let result = x.compare_exchange(1, 5, Ordering::SeqCst, Ordering::SeqCst);

                    thd1.join().unwrap();

                    observed_values_clone.lock().unwrap().insert(result);
                });

                let observed_values = Arc::try_unwrap(observed_values)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                assert_eq!(observed_values.len(), 2);
                assert!(observed_values.contains(&Ok(1)));
                assert!(observed_values.contains(&Err(0)));
            }

            #[test]
            fn compare_exchange_weak() {
                let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
                let observed_values_clone = observed_values.clone();

                check_dfs(move || {
                    let x = Arc::new($ty::new(0));

                    let thd1 = {
                        let x = x.clone();
                        thread::spawn(move || {
                            x.store(1, Ordering::SeqCst);
                        })
                    };

                    let result = x.compare_exchange_weak(1, 5, Ordering::SeqCst, Ordering::SeqCst);

                    thd1.join().unwrap();

                    observed_values_clone.lock().unwrap().insert(result);
                });

                let observed_values = Arc::try_unwrap(observed_values)
                    .unwrap()
                    .into_inner()
                    .unwrap();
                // TODO our compare_exchange_weak cannot spuriously fail
                assert_eq!(observed_values.len(), 2);
                assert!(observed_values.contains(&Ok(1)));
                assert!(observed_values.contains(&Err(0)));
            }
        }
    };
}

int_tests!(int_i8, AtomicI8);
int_tests!(int_i16, AtomicI16);
int_tests!(int_i32, AtomicI32);
int_tests!(int_i64, AtomicI64);
int_tests!(int_isize, AtomicIsize);
int_tests!(int_u8, AtomicU8);
int_tests!(int_u16, AtomicU16);
int_tests!(int_u32, AtomicU32);
int_tests!(int_u64, AtomicU64);
int_tests!(int_usize, AtomicUsize);

mod bool {
    use super::*;

    #[test]
    fn try_update() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let x = Arc::new(AtomicBool::new(false));

            let thd1 = {
                let x = x.clone();
                thread::spawn(move || {
                    x.store(true, Ordering::SeqCst);
                })
            };

            let _val = x
                .try_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(!x))
                .unwrap();

            thd1.join().unwrap();

            let x = Arc::try_unwrap(x).unwrap().into_inner();
            observed_values_clone.lock().unwrap().insert(x);
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(observed_values.len(), 2);
    }

    #[test]
    fn compare_exchange() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let x = Arc::new(AtomicBool::new(false));

            let thd1 = {
                let x = x.clone();
                thread::spawn(move || {
                    x.store(true, Ordering::SeqCst);
                })
            };

            let result = x.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst);

            thd1.join().unwrap();

            observed_values_clone.lock().unwrap().insert(result);
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(observed_values.len(), 2);
        assert!(observed_values.contains(&Ok(false)));
        assert!(observed_values.contains(&Err(true)));
    }

    #[test]
    fn fetch_not() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let x = Arc::new(AtomicBool::new(false));

            let thd1 = {
                let x = x.clone();
                thread::spawn(move || x.fetch_not(Ordering::SeqCst))
            };

            let val = x.fetch_not(Ordering::SeqCst);

            let thd1_val = thd1.join().unwrap();

            // The two `not`s cancel out, so neither was lost
            let x = Arc::try_unwrap(x).unwrap().into_inner();
            assert!(!x);
            observed_values_clone
                .lock()
                .unwrap()
                .insert((val, thd1_val));
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(
            observed_values,
            HashSet::from([(false, true), (true, false)])
        );
    }
}

mod ptr {
    use super::*;

    #[test]
    fn try_update() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let mut x = 0usize;
            let x_ptr = &mut x as *mut _;
            let ptr = Arc::new(AtomicPtr::new(x_ptr));

            let thd1 = {
                let ptr = ptr.clone();
                thread::spawn(move || {
                    let mut y = 0usize;
                    ptr.store(&mut y as *mut _, Ordering::SeqCst);
                })
            };

            let _val = ptr
                .try_update(Ordering::SeqCst, Ordering::SeqCst, |_| Some(x_ptr))
                .unwrap();

            thd1.join().unwrap();

            let ptr = Arc::try_unwrap(ptr).unwrap().into_inner();
            observed_values_clone.lock().unwrap().insert(ptr == x_ptr);
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(observed_values.len(), 2);
    }

    #[test]
    fn compare_exchange() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let mut x = 0usize;
            let x_ptr = &mut x as *mut _;
            let mut x2 = 0usize;
            let x2_ptr = &mut x2 as *mut _;
            let ptr = Arc::new(AtomicPtr::new(x_ptr));

            let thd1 = {
                let ptr = ptr.clone();
                thread::spawn(move || {
                    let mut y = 0usize;
                    ptr.store(&mut y as *mut _, Ordering::SeqCst);
                })
            };

            let result = ptr.compare_exchange(x_ptr, x2_ptr, Ordering::SeqCst, Ordering::SeqCst);

            thd1.join().unwrap();

            observed_values_clone.lock().unwrap().insert(result.is_ok());
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(observed_values.len(), 2);
    }

    #[test]
    fn fetch_ptr_add() {
        let observed_values = Arc::new(std::sync::Mutex::new(HashSet::new()));
        let observed_values_clone = observed_values.clone();

        check_dfs(move || {
            let mut array = [0usize; 3];
            let base = array.as_mut_ptr();
            let ptr = Arc::new(AtomicPtr::new(base));

            let thd1 = {
                let ptr = ptr.clone();
                thread::spawn(move || {
                    ptr.fetch_byte_add(std::mem::size_of::<usize>(), Ordering::SeqCst);
                })
            };

            let val = ptr.fetch_ptr_add(1, Ordering::SeqCst);

            thd1.join().unwrap();

            // Neither add is lost
            let ptr = Arc::try_unwrap(ptr).unwrap().into_inner();
            assert_eq!(ptr, base.wrapping_add(2));
            observed_values_clone.lock().unwrap().insert(val == base);
        });

        let observed_values = Arc::try_unwrap(observed_values)
            .unwrap()
            .into_inner()
            .unwrap();
        assert_eq!(observed_values.len(), 2);
    }

    #[test]
    fn fetch_ptr_ops() {
        check_dfs(|| {
            let mut array = [0u64; 3];
            let base = array.as_mut_ptr();
            let ptr = AtomicPtr::new(base);

            assert_eq!(ptr.fetch_ptr_add(2, Ordering::SeqCst), base);
            assert_eq!(ptr.fetch_ptr_sub(1, Ordering::SeqCst), base.wrapping_add(2));
            assert_eq!(
                ptr.fetch_byte_add(8, Ordering::SeqCst),
                base.wrapping_add(1)
            );
            assert_eq!(
                ptr.fetch_byte_sub(16, Ordering::SeqCst),
                base.wrapping_add(2)
            );
            assert_eq!(ptr.load(Ordering::SeqCst), base);

            // Tag the pointer's low bit, which is unused since `u64` is at least 4-byte aligned.
            // Run each op with the bit both clear and set, to tell the ops apart.
            assert_eq!(ptr.fetch_or(1, Ordering::SeqCst), base); // sets
            assert_eq!(ptr.fetch_or(1, Ordering::SeqCst).addr(), base.addr() | 1); // no-op
            assert_eq!(ptr.fetch_xor(1, Ordering::SeqCst).addr(), base.addr() | 1); // clears
            assert_eq!(ptr.fetch_xor(1, Ordering::SeqCst), base); // sets
            assert_eq!(ptr.fetch_and(!1, Ordering::SeqCst).addr(), base.addr() | 1); // clears
            assert_eq!(ptr.fetch_and(!1, Ordering::SeqCst), base); // no-op
            assert_eq!(ptr.load(Ordering::SeqCst), base);
        });
    }

    #[test]
    fn fmt() {
        let mut x = 0usize;
        let x_ptr = &mut x as *mut usize;
        let ptr = AtomicPtr::new(x_ptr);

        assert_eq!(format!("{:?}", ptr), format!("{:?}", x_ptr));
        assert_eq!(format!("{:p}", ptr), format!("{:p}", x_ptr));
        assert_eq!(format!("{:#p}", ptr), format!("{:#p}", x_ptr));
    }
}

// We don't support relaxed orderings, but they at least shouldn't crash. This test should fail if
// we modeled Ordering::Relaxed correctly, but we don't.
#[test]
fn relaxed_orderings_work() {
    check_dfs(move || {
        let flag = Arc::new(AtomicBool::new(false));
        let data = Arc::new(AtomicU64::new(0));

        {
            let flag = Arc::clone(&flag);
            let data = Arc::clone(&data);
            thread::spawn(move || {
                data.store(42, Ordering::Relaxed);
                flag.store(true, Ordering::Relaxed);
            });
        }

        if flag.load(Ordering::Relaxed) {
            assert_eq!(data.load(Ordering::Relaxed), 42);
        }
    });
}

// Check that atomics work from within futures
#[test]
fn fetch_update_alias() {
    check_dfs(move || {
        let int = AtomicUsize::new(1);
        assert_eq!(
            int.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(x + 1)),
            Ok(1)
        );
        assert_eq!(
            int.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |_| None),
            Err(2)
        );

        let b = AtomicBool::new(false);
        assert_eq!(
            b.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(!x)),
            Ok(false)
        );
        assert!(b.load(Ordering::SeqCst));

        let mut x = 0usize;
        let ptr = AtomicPtr::new(std::ptr::null_mut());
        let res = ptr.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |_| {
            Some(&mut x as *mut _)
        });
        assert_eq!(res, Ok(std::ptr::null_mut()));
    })
}

// Check that `update` stores the new value, and that concurrent updates are not lost
#[test]
fn update() {
    check_dfs(move || {
        let int = Arc::new(AtomicUsize::new(1));
        let thd = {
            let int = int.clone();
            thread::spawn(move || int.update(Ordering::SeqCst, Ordering::SeqCst, |x| x * 2))
        };
        let prev = int.update(Ordering::SeqCst, Ordering::SeqCst, |x| x + 1);
        let thd_prev = thd.join().unwrap();
        // Neither update is lost: the result is (1 + 1) * 2 or 1 * 2 + 1
        match int.load(Ordering::SeqCst) {
            4 => assert_eq!((prev, thd_prev), (1, 2)),
            3 => assert_eq!((prev, thd_prev), (2, 1)),
            v => panic!("unexpected value {v}"),
        }

        let b = AtomicBool::new(false);
        assert!(!b.update(Ordering::SeqCst, Ordering::SeqCst, |x| !x));
        assert!(b.load(Ordering::SeqCst));

        let mut x = 0usize;
        let ptr = AtomicPtr::new(std::ptr::null_mut());
        let prev = ptr.update(Ordering::SeqCst, Ordering::SeqCst, |_| &mut x as *mut _);
        assert_eq!(prev, std::ptr::null_mut());
        assert_eq!(ptr.load(Ordering::SeqCst), &mut x as *mut _);
    })
}

// Check that `update` does not lose writes from another thread _while `f` itself runs_.
fn check_update_retries<U>(update_fn: U)
where
    U: Fn(&AtomicUsize, &mut dyn FnMut(usize) -> usize) + Send + Sync + 'static,
{
    let observed_calls = Arc::new(std::sync::Mutex::new(HashSet::new()));
    let observed_calls_clone = observed_calls.clone();

    check_dfs(move || {
        let x = Arc::new(AtomicUsize::new(0));
        let y = AtomicUsize::new(0);

        let thd = {
            let x = x.clone();
            thread::spawn(move || {
                x.fetch_add(1, Ordering::SeqCst);
            })
        };

        let mut calls = 0;
        update_fn(&x, &mut |v| {
            calls += 1;
            y.load(Ordering::SeqCst);
            v + 1
        });
        thd.join().unwrap();

        assert_eq!(x.load(Ordering::SeqCst), 2);
        observed_calls_clone.lock().unwrap().insert(calls);
    });

    // `f` runs twice when the other thread writes `x` while `f` runs, and once otherwise
    let observed_calls = Arc::try_unwrap(observed_calls)
        .unwrap()
        .into_inner()
        .unwrap();
    assert_eq!(observed_calls, HashSet::from([1, 2]));
}

#[test]
fn try_update_retries() {
    check_update_retries(|x, f| {
        x.try_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(f(v)))
            .unwrap();
    });
}

#[test]
fn fetch_update_retries() {
    check_update_retries(|x, f| {
        x.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(f(v)))
            .unwrap();
    });
}

#[test]
fn update_retries() {
    check_update_retries(|x, f| {
        x.update(Ordering::SeqCst, Ordering::SeqCst, f);
    });
}
