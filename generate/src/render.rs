//! Writes a [`Plan`] out twice, line by line in step: as `.rk` source, and
//! as a Rust rankcheck-rt test (in the vocabulary of crossfront's `world`).
//! Every `.rk` statement is one line, and so is its Rust twin, so a
//! failure's Rust line names the `.rk` line it stands for.

use std::fmt::Write as _;

use super::{Heap, Plan, Snippet, Style};

/// One line of the program: its `.rk` text, its Rust text, or both.
struct Line {
    depth: usize,
    rk: Option<String>,
    rust: Option<String>,
}

/// The two texts of a program.
pub(super) struct Rendered {
    /// The `.rk` source.
    pub rk: String,
    /// The Rust items.
    pub rust: String,
    /// `(Rust line, .rk line)`, 1-based, for every Rust line that renders
    /// a `.rk` line.
    pub lines: Vec<(u32, u32)>,
}

/// Renders `plan` in both languages.
pub(super) fn render(plan: &Plan) -> Rendered {
    let mut out = Renderer {
        plan,
        lines: Vec::new(),
        depth: 0,
        fresh: 0,
        replicated: false,
        atomic: false,
    };
    out.declarations();
    out.helpers();
    match plan.style {
        Style::Items => out.items(),
        Style::Replicated => out.replicated(),
        Style::Spawner => out.spawner(),
    }
    out.entry();
    out.finish()
}

/// Writes a program out, one statement per line.
struct Renderer<'p> {
    plan: &'p Plan,
    lines: Vec<Line>,
    /// Indentation level.
    depth: usize,
    /// Counter for fresh local names.
    fresh: usize,
    /// Whether the body being written is a replicated thread's (`i` in
    /// scope).
    replicated: bool,
    /// Whether the line is inside `atomic` (in Rust: the state guard `st`
    /// is held, and globals are its fields).
    atomic: bool,
}

impl Renderer<'_> {
    fn push(&mut self, rk: Option<&str>, rust: Option<&str>) {
        self.lines.push(Line {
            depth: self.depth,
            rk: rk.map(str::to_owned),
            rust: rust.map(str::to_owned),
        });
    }

    /// A `.rk` line and its Rust twin.
    fn line(&mut self, rk: &str, rust: &str) {
        self.push(Some(rk), Some(rust));
    }

    fn open(&mut self, rk: &str, rust: &str) {
        self.line(rk, rust);
        self.depth += 1;
    }

    /// A closing brace in both languages.
    fn close(&mut self) {
        self.close_with("}");
    }

    fn close_with(&mut self, rust: &str) {
        self.depth -= 1;
        self.line("}", rust);
    }

    fn finish(self) -> Rendered {
        let mut rendered = Rendered {
            rk: String::new(),
            rust: String::new(),
            lines: Vec::new(),
        };
        let (mut rk_line, mut rust_line) = (0, 0);
        for line in &self.lines {
            let indent = "    ".repeat(line.depth);
            if let Some(rk) = &line.rk {
                rk_line += 1;
                let _ = writeln!(rendered.rk, "{indent}{rk}");
            }
            if let Some(rust) = &line.rust {
                rust_line += 1;
                let _ = writeln!(rendered.rust, "{indent}{rust}");
                if line.rk.is_some() {
                    rendered.lines.push((rust_line, rk_line));
                }
            }
        }
        rendered
    }

    fn local(&mut self) -> String {
        self.fresh += 1;
        format!("x{}", self.fresh)
    }

    fn index(&self, g: u8) -> usize {
        g as usize % self.plan.globals.len()
    }

    fn global(&self, g: u8) -> String {
        format!("g{}", self.index(g))
    }

    /// A read of global `g` in Rust.
    fn read(&self, g: u8) -> String {
        let k = self.index(g);
        if self.atomic {
            format!("st.g[{k}]")
        } else {
            format!("cx.g({k})")
        }
    }

    /// A write of `value` to global `g` in Rust, a statement.
    fn write(&self, g: u8, value: &str) -> String {
        let k = self.index(g);
        if self.atomic {
            format!("st.g[{k}] = {value};")
        } else {
            format!("cx.set({k}, {value});")
        }
    }

    fn mutex(&self, m: u8) -> Option<String> {
        (self.plan.mutexes > 0).then(|| format!("m{}", m as usize % self.plan.mutexes))
    }

    /// `lock(m);` and the guard named after the mutex.
    fn lock(&mut self, m: &str, mutable: bool) {
        let index = &m[1..];
        let binding = if mutable { "let mut" } else { "let" };
        self.line(
            &format!("lock({m});"),
            &format!("{binding} {m} = cx.m[{index}].lock().unwrap();"),
        );
    }

    fn unlock(&mut self, m: &str) {
        self.line(&format!("unlock({m});"), &format!("drop({m});"));
    }

    fn declarations(&mut self) {
        let plan = self.plan;
        for (k, init) in plan.globals.iter().enumerate() {
            self.push(Some(&format!("global g{k} = {init};")), None);
        }
        if plan.array {
            self.push(Some("global arr[2];"), None);
        }
        if plan.heap != Heap::None {
            self.push(Some("global box = null;"), None);
        }
        for m in 0..plan.mutexes {
            self.push(Some(&format!("mutex m{m};")), None);
        }
        if plan.cond {
            self.push(Some("cond c;"), None);
        }
    }

    fn uses(&self, wanted: fn(&Snippet) -> bool) -> bool {
        self.plan.bodies.iter().flatten().any(wanted)
    }

    fn helpers(&mut self) {
        if self.uses(|s| matches!(s, Snippet::Call(true, _))) {
            self.open("fn add(k) {", "fn add(cx: &W, k: i64) {");
            self.line("g0 = g0 + k;", "cx.set(0, cx.g(0) + k);");
            self.close();
        }
        if self.uses(|s| matches!(s, Snippet::Call(false, _))) {
            self.open("fn get() {", "fn get(cx: &W) -> i64 {");
            self.line("return g0;", "return cx.g(0);");
            self.close();
        }
        if self.uses(|s| matches!(s, Snippet::AwaitHelper(_))) {
            self.open("fn ready(v) {", "fn ready(st: &Vals, v: i64) -> bool {");
            self.line("return g0 >= v;", "return st.g[0] >= v;");
            self.close();
        }
    }

    fn body(&mut self, body: &[Snippet]) {
        for snippet in body {
            self.snippet(*snippet);
        }
    }

    /// One `thread` item per thread; in Rust, one function each, which
    /// `run` spawns.
    fn items(&mut self) {
        let plan = self.plan;
        for (k, body) in plan.bodies.iter().enumerate() {
            self.open(&format!("thread t{k} {{"), &format!("fn t{k}(cx: &W) {{"));
            self.body(body);
            if k + 1 == plan.bodies.len() {
                self.check();
            }
            self.close();
        }
    }

    fn replicated(&mut self) {
        let plan = self.plan;
        self.open("thread w[2](i) {", "fn w(cx: &W, i: usize) {");
        self.replicated = true;
        self.body(&plan.bodies[0]);
        self.replicated = false;
        if plan.bodies.len() == 1 {
            self.check();
        }
        self.close();
        if let Some(body) = plan.bodies.get(1) {
            self.open("thread t {", "fn t(cx: &W) {");
            self.body(body);
            self.check();
            self.close();
        }
    }

    /// `main` makes the heap object, spawns the workers (the last one
    /// inside `atomic` if the plan says so), runs its own snippets, joins
    /// the workers and checks a final value.
    fn spawner(&mut self) {
        let plan = self.plan;
        let workers = plan.n_threads - 1;
        for k in 0..workers {
            self.open(&format!("fn w{k}() {{"), &format!("fn w{k}(cx: &W) {{"));
            self.body(&plan.bodies[k + 1]);
            self.close();
        }
        self.open("fn main() {", "fn main(cx: &W) {");
        match plan.heap {
            Heap::None => {}
            Heap::Record => self.line("box = new { v: 0, w: 0 };", "cx.set_box();"),
            Heap::Array => self.line("box = new [2];", "cx.set_box();"),
        }
        for k in 0..workers {
            if k + 1 == workers && plan.spawn_in_atomic {
                self.line(&format!("let h{k} = null;"), &format!("let h{k};"));
                self.open_atomic();
                self.line(
                    &format!("h{k} = spawn w{k}();"),
                    &format!("h{k} = spawn(cx, w{k});"),
                );
                self.line(
                    "g0 = g0 + 1;",
                    &self.write(0, &format!("{} + 1", self.read(0))),
                );
                self.close_atomic();
            } else {
                self.line(
                    &format!("let h{k} = spawn w{k}();"),
                    &format!("let h{k} = spawn(cx, w{k});"),
                );
            }
        }
        self.body(&plan.bodies[0]);
        for k in 0..workers {
            self.line(&format!("join(h{k});"), &format!("h{k}.join().unwrap();"));
        }
        self.check();
        self.close();
    }

    /// The Rust test's entry, `run`: the shared state, then the threads
    /// as the style starts them.
    fn entry(&mut self) {
        let plan = self.plan;
        let inits: Vec<String> = plan.globals.iter().map(i64::to_string).collect();
        self.push(None, Some("pub fn run() {"));
        self.depth += 1;
        let guards: Vec<String> = (0..plan.globals.len())
            .map(|k| guarded(plan, k).to_string())
            .collect();
        let shape = format!(
            "let cx = World::new(&[{}], &[{}], {});",
            inits.join(", "),
            guards.join(", "),
            awaited(plan)
        );
        self.push(None, Some(&shape));
        match plan.style {
            Style::Items => {
                for k in 0..plan.bodies.len() {
                    self.push(None, Some(&format!("spawn(&cx, t{k});")));
                }
            }
            Style::Replicated => {
                self.push(None, Some("spawn_copy(&cx, w, 0);"));
                self.push(None, Some("spawn_copy(&cx, w, 1);"));
                if plan.bodies.len() > 1 {
                    self.push(None, Some("spawn(&cx, t);"));
                }
            }
            Style::Spawner => self.push(None, Some("main(&cx);")),
        }
        self.depth -= 1;
        self.push(None, Some("}"));
    }

    /// The plan's final check, if it has one.
    fn check(&mut self) {
        if let Some((g, v)) = self.plan.final_check {
            let (name, read) = (self.global(g), self.read(g));
            self.line(
                &format!("assert({name} != {v}, \"{name} ends at {v}\");"),
                &format!("assert!({read} != {v}, \"{name} ends at {v}\");"),
            );
        }
    }

    fn snippet(&mut self, snippet: Snippet) {
        match snippet {
            Snippet::Increment(g) => self.increment(g),
            Snippet::Store(g, v) => {
                let name = self.global(g);
                self.line(&format!("{name} = {v};"), &self.write(g, &v.to_string()));
            }
            Snippet::ReadTwice(g) => self.read_twice(g),
            Snippet::AssertAtMost(g, bound) => {
                let (name, read) = (self.global(g), self.read(g));
                self.line(
                    &format!("assert({name} <= {bound}, \"{name} is at most {bound}\");"),
                    &format!("assert!({read} <= {bound}, \"{name} is at most {bound}\");"),
                );
            }
            Snippet::IfShared(g, v, h) => self.if_shared(g, v, h),
            Snippet::Locked(m, g) => self.locked(m, g),
            Snippet::Sync(m, g) => self.sync(m, g),
            Snippet::Nested(forward, g) => self.nested(forward, g),
            Snippet::Await(g, v) => {
                let (name, k) = (self.global(g), self.index(g));
                self.line(
                    &format!("await {name} == {v};"),
                    &format!("cx.await_until(|st| st.g[{k}] == {v});"),
                );
            }
            Snippet::AwaitHelper(v) => self.line(
                &format!("await ready({v});"),
                &format!("cx.await_until(|st| ready(st, {v}));"),
            ),
            Snippet::Atomic(g, h) => self.atomic(g, h),
            Snippet::AtomicUnlock(m, g, h) => self.atomic_unlock(m, g, h),
            Snippet::Yield => self.line("yield;", "thread::yield_now();"),
            Snippet::Loop(n, g) => self.bounded_loop(n, g),
            Snippet::Call(add, k) => self.call(add, k),
            Snippet::Divide(g) => {
                let (q, name, read) = (self.local(), self.global(g), self.read(g));
                self.line(
                    &format!("let {q} = 6 / {name};"),
                    &format!("let {q} = 6 / {read};"),
                );
            }
            Snippet::ArrayBump(index) => self.array_bump(index),
            Snippet::HeapBump(index) => self.heap_bump(index),
            Snippet::Consume(g) => self.consume(g),
            Snippet::Produce(g, all) => self.produce(g, all),
        }
    }

    fn increment(&mut self, g: u8) {
        let name = self.global(g);
        let rust = self.write(g, &format!("{} + 1", self.read(g)));
        self.line(&format!("{name} = {name} + 1;"), &rust);
    }

    fn read_twice(&mut self, g: u8) {
        let (first, second) = (self.local(), self.local());
        let (name, read) = (self.global(g), self.read(g));
        self.line(
            &format!("let {first} = {name};"),
            &format!("let {first} = {read};"),
        );
        self.line(
            &format!("let {second} = {name};"),
            &format!("let {second} = {read};"),
        );
        self.line(
            &format!("assert({first} == {second}, \"{name} changed between two reads\");"),
            &format!("assert!({first} == {second}, \"{name} changed between two reads\");"),
        );
    }

    fn if_shared(&mut self, g: u8, v: u8, h: u8) {
        let (name, read) = (self.global(g), self.read(g));
        let other = self.global(h);
        self.open(
            &format!("if {name} == {v} {{"),
            &format!("if {read} == {v} {{"),
        );
        self.line(&format!("{other} = 1;"), &self.write(h, "1"));
        self.depth -= 1;
        self.open("} else {", "} else {");
        self.line(&format!("{other} = 2;"), &self.write(h, "2"));
        self.close();
    }

    fn locked(&mut self, m: u8, g: u8) {
        let Some(m) = self.mutex(m) else {
            return self.increment(g);
        };
        self.lock(&m, false);
        self.increment(g);
        self.unlock(&m);
    }

    fn sync(&mut self, m: u8, g: u8) {
        let Some(m) = self.mutex(m) else {
            return self.increment(g);
        };
        let t = self.local();
        let (name, read) = (self.global(g), self.read(g));
        self.open(
            &format!("sync {m} {{"),
            &format!("{{ let {m} = cx.m[{}].lock().unwrap();", &m[1..]),
        );
        self.line(&format!("let {t} = {name};"), &format!("let {t} = {read};"));
        self.line(
            &format!("{name} = {t} + 1;"),
            &self.write(g, &format!("{t} + 1")),
        );
        self.close();
    }

    fn nested(&mut self, forward: bool, g: u8) {
        if self.plan.mutexes < 2 {
            return self.locked(0, g);
        }
        let (outer, inner) = if forward { ("m0", "m1") } else { ("m1", "m0") };
        self.lock(outer, false);
        self.lock(inner, false);
        self.increment(g);
        self.unlock(inner);
        self.unlock(outer);
    }

    /// `atomic {`: in Rust, the state guard taken (globals are then its
    /// fields).
    fn open_atomic(&mut self) {
        self.open("atomic {", "{ let mut st = cx.state();");
        self.atomic = true;
    }

    /// The end of `atomic`: the awaiting threads told, the guard dropped.
    fn close_atomic(&mut self) {
        self.atomic = false;
        self.close_with("cx.changed(); }");
    }

    fn atomic(&mut self, g: u8, h: u8) {
        self.open_atomic();
        self.increment(g);
        let (name, other) = (self.global(g), self.global(h));
        self.line(&format!("{other} = {name};"), &self.write(h, &self.read(g)));
        self.close_atomic();
    }

    fn atomic_unlock(&mut self, m: u8, g: u8, h: u8) {
        let Some(m) = self.mutex(m) else {
            return self.atomic(g, h);
        };
        self.lock(&m, false);
        self.increment(g);
        self.open_atomic();
        let (name, other) = (self.global(g), self.global(h));
        self.line(&format!("{other} = {name};"), &self.write(h, &self.read(g)));
        self.unlock(&m);
        self.close_atomic();
    }

    fn bounded_loop(&mut self, n: u8, g: u8) {
        let k = self.local();
        self.open(
            &format!("for {k} in 0..{n} {{"),
            &format!("for _ in 0..{n} {{"),
        );
        self.increment(g);
        self.close();
    }

    fn call(&mut self, add: bool, k: u8) {
        if add {
            self.line(&format!("add({k});"), &format!("add(cx, {k});"));
        } else {
            let t = self.local();
            self.line(&format!("let {t} = get();"), &format!("let {t} = get(cx);"));
        }
    }

    fn array_bump(&mut self, index: u8) {
        if !self.plan.array {
            return self.increment(index);
        }
        let (rk, rust) = if self.replicated {
            ("i".to_string(), "i".to_string())
        } else {
            (index.to_string(), index.to_string())
        };
        self.line(
            &format!("arr[{rk}] = arr[{rk}] + 1;"),
            &format!("cx.set_arr({rust}, cx.arr({rust}) + 1);"),
        );
    }

    fn heap_bump(&mut self, index: u8) {
        let b = self.local();
        let (rk_place, slot) = match self.plan.heap {
            Heap::None => return self.increment(index),
            Heap::Record if index % 2 == 0 => (format!("{b}.v"), 0),
            Heap::Record => (format!("{b}.w"), 1),
            Heap::Array => (format!("{b}[{}]", index % 2), index % 2),
        };
        self.line(
            &format!("let {b} = box;"),
            &format!("let {b} = cx.boxed();"),
        );
        self.line(
            &format!("{rk_place} = {rk_place} + 1;"),
            &format!("{b}.set({slot}, {b}.get({slot}) + 1);"),
        );
    }

    fn consume(&mut self, g: u8) {
        if !self.plan.cond {
            return self.increment(g);
        }
        let (name, read) = (self.global(g), self.read(g));
        self.lock("m0", true);
        self.open(
            &format!("while {name} == 0 {{"),
            &format!("while {read} == 0 {{"),
        );
        self.line("wait(c, m0);", "m0 = cx.c.wait(m0).unwrap();");
        self.close();
        self.line(
            &format!("{name} = {name} - 1;"),
            &self.write(g, &format!("{read} - 1")),
        );
        self.unlock("m0");
    }

    fn produce(&mut self, g: u8, all: bool) {
        if !self.plan.cond {
            return self.increment(g);
        }
        self.lock("m0", false);
        self.increment(g);
        if all {
            self.line("broadcast(c);", "cx.c.notify_all();");
        } else {
            self.line("signal(c);", "cx.c.notify_one();");
        }
        self.unlock("m0");
    }
}

/// Whether the Rust twin keeps global `k` in the mutex-guarded state
/// rather than in an atomic: when an `atomic` block or an `await` reads
/// or writes it (the others stay atomics, whose accesses commute).
fn guarded(plan: &Plan, k: usize) -> bool {
    let is = |g: u8| g as usize % plan.globals.len() == k;
    let spawn_atomic = plan.style == Style::Spawner && plan.spawn_in_atomic && plan.n_threads > 1;
    (spawn_atomic && k == 0)
        || plan.bodies.iter().flatten().any(|s| match *s {
            Snippet::Await(g, _) => is(g),
            Snippet::Atomic(g, h) | Snippet::AtomicUnlock(_, g, h) => is(g) || is(h),
            Snippet::AwaitHelper(_) => k == 0,
            _ => false,
        })
}

/// Whether some thread awaits a condition over the globals.
fn awaited(plan: &Plan) -> bool {
    plan.bodies
        .iter()
        .flatten()
        .any(|s| matches!(s, Snippet::Await(..) | Snippet::AwaitHelper(_)))
}
