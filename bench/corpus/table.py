#!/usr/bin/env python3
"""Print the README's program table from check.py's JSON lines.

Usage: check.py --jsonl results.jsonl; table.py results.jsonl
"""
import json
import sys

# file -> (source, one-line porting note)
INFO = {
    "cs_account_bad.rk": ("SCTBench CS.account_bad (faithful)", "no join; main's return = exit_process() (read, then clear `alive`); assert counts only while alive"),
    "cs_account_bad_join.rk": ("SCTBench CS.account_bad (join all)", "main joins its 3 threads"),
    "cs_carter01_bad.rk": ("SCTBench CS.carter01_bad", "main spawns tA, tB, 2 empty threads, joins all"),
    "cs_deadlock01_bad.rk": ("SCTBench CS.deadlock01_bad", "main spawns t1, t2, joins"),
    "cs_reorder_3_bad.rk": ("SCTBench CS.reorder_3_bad", "2 setters + 1 checker; C short-circuit order kept"),
    "cs_reorder_4_bad.rk": ("SCTBench CS.reorder_4_bad", "3 setters + 1 checker"),
    "cs_reorder_5_bad.rk": ("SCTBench CS.reorder_5_bad", "4 setters + 1 checker"),
    "cs_reorder_10_bad.rk": ("SCTBench CS.reorder_10_bad", "9 setters + 1 checker (11 threads: classify samples orders, no t)"),
    "cs_reorder_20_bad.rk": ("SCTBench CS.reorder_20_bad", "10 setters + 10 checkers (21 threads: classify samples orders, no t)"),
    "cs_stack_bad.rk": ("SCTBench CS.stack_bad", "SIZE 10, 10 iterations each, as the original"),
    "cs_token_ring_bad.rk": ("SCTBench CS.token_ring_bad (faithful)", "ESBMC atomic = mutex E; no join; exit_process() as in account_bad"),
    "cs_token_ring_bad_join.rk": ("SCTBench CS.token_ring_bad (join all)", "ESBMC atomic = mutex E; main joins"),
    "cs_token_ring_bad_join_atomic.rk": ("SCTBench CS.token_ring_bad (join all, ESBMC semantics)", "ESBMC atomic = `atomic` block"),
    "cs_wronglock_3_bad.rk": ("SCTBench CS.wronglock_3_bad", "1 A + 3 B; volatile re-read = second read"),
    "cs_wronglock_bad.rk": ("SCTBench CS.wronglock_bad", "1 A + 7 B (9 threads: classify samples orders, no t)"),
    "chess_wsq.rk": ("SCTBench chess.WSQ (BUG3)", "owner = main + 1 stealer; `t & mask` = `t % (mask+1)`; growable heap ring"),
    "chess_wsq_fixed.rk": ("SCTBench chess.WSQ, BUG3 removed", "correct push test; expect ok"),
    "chess_iwsqws_skel.rk": ("SCTBench chess.IWSQWS (skeleton)", "correct WSQ + unsynchronised per-thread state stacks (catalog's advice); spin lock = mutex"),
    "chess_swsq_skel.rk": ("SCTBench chess.SWSQ (skeleton)", "as IWSQWS skeleton with 2 stealers, push 4 then pop 4"),
    "cb_aget_bug2.rk": ("SCTBench CB.aget-bug2 (skeleton)", "the catalog's skeleton: 2 workers x 2 chunks + saver"),
    "radbench_bug2_toy.rk": ("RADBench bug2 (INSPIRED-BY toy)", "GC null-checks then re-reads a context's thread while it detaches"),
    "parsec_streamcluster3_skel.rk": ("PARSEC streamcluster3 (skeleton)", "3 threads, barrier = mutex+cond; missing barrier after summing hizs; hizs = null"),
    "contest_account_2.rk": ("ConTest Account (2 accounts)", "racy transfer (next's lock not taken), records with a mutex"),
    "contest_account_3.rk": ("ConTest Account (3 accounts)", "as above, 3 accounts"),
    "contest_account_5.rk": ("ConTest Account (5 accounts)", "as above, 5 accounts"),
    "contest_account_nested_2.rk": ("ConTest Account, JMCR nested lock (2)", "transfer locks next too; deposit synchronized to isolate the lock cycle"),
    "contest_account_nested_3.rk": ("ConTest Account, JMCR nested lock (3)", "as above, 3 accounts"),
    "contest_airline_tickets_3.rk": ("ConTest AirlineTickets (3 tickets)", "capacity 2; handles in a heap array (Java Thread[])"),
    "contest_airline_tickets_5.rk": ("ConTest AirlineTickets (5 tickets)", "capacity 4"),
    "contest_airline_tickets_3_ok.rk": ("ConTest AirlineTickets (3), fixed", "the sale under one lock; expect ok"),
    "contest_allocation_vector_4.rk": ("ConTest AllocationVector (4 blocks)", "2 threads x 2 allocations; the throw is an assert"),
    "contest_bubblesort.rk": ("ConTest BubbleSort", "4 elements {463, 0, 2435, 89}, 4 unlocked passes"),
    "contest_bubblesort_sync_ok.rk": ("ConTest BubbleSort (JMCR, synchronized)", "each pass under one lock; expect ok"),
    "contest_bufwriter.rk": ("ConTest BufWriter", "deterministic: 2 SyncWriters + 1 plain Writer x 2 writes, checker drains twice"),
    "contest_pingpong.rk": ("ConTest PingPong", "5 threads; NPE = run-time error on a field of null"),
    "contest_piper.rk": ("ConTest Piper", "monitor = mutex + cond (broadcast); 2 fillers x 2, 1 emptier x 4"),
    "trivial/cs_arithmetic_prog_bad.rk": ("SCTBench CS.arithmetic_prog_bad", "N = 3"),
    "trivial/cs_din_phil2_sat.rk": ("SCTBench CS.din_phil2_sat", "E = mutex; forks = `new mutex` array; racy phil++"),
    "trivial/cs_din_phil3_sat.rk": ("SCTBench CS.din_phil3_sat", "as above"),
    "trivial/cs_din_phil4_sat.rk": ("SCTBench CS.din_phil4_sat", "as above"),
    "trivial/cs_din_phil5_sat.rk": ("SCTBench CS.din_phil5_sat", "increment and test inside E"),
    "trivial/cs_din_phil6_sat.rk": ("SCTBench CS.din_phil6_sat", "as above"),
    "trivial/cs_din_phil7_sat.rk": ("SCTBench CS.din_phil7_sat", "relock of E by its owner blocks forever: deadlock (8 threads: no t)"),
    "trivial/cs_lazy01_bad.rk": ("SCTBench CS.lazy01_bad", "main spawns t1..t3, joins"),
    "trivial/cs_phase01_bad.rk": ("SCTBench CS.phase01_bad", "main spawns 2, joins"),
    "trivial/cs_sync01_bad.rk": ("SCTBench CS.sync01_bad", "Mesa condvars, no spurious wake-ups"),
    "trivial/cs_sync02_bad.rk": ("SCTBench CS.sync02_bad", "N = 2"),
    "trivial/inspect_ctrace_test.rk": ("INSPECT misc.ctrace-test (toy port)", "library state = one record under mutex `sem`; TRC_END nulls it"),
    "trivial/parsec_streamcluster_skel.rk": ("PARSEC streamcluster (skeleton)", "pspeedy's open/barrier protocol, 3 threads; second barrier missing"),
}


def fmt_classify(c, dt):
    if c == "timeout":
        return "timeout (>%.0fs)" % dt
    if c == "skipped":
        return "-"
    if c[0] == "ok":
        return "no bug to c=3, %.2fs" % dt
    return "%.2fs" % dt


def main():
    rows = [json.loads(line) for line in open(sys.argv[1])]
    print("| file | source | kind | c | v | t | trivial | classify | --no-prune | random hit | note |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        f = r["file"]
        src, note = INFO.get(f, ("?", ""))
        c = r["classify"] if r["classify"] != "timeout" else r["noprune"]
        if r["kind"] == "ok":
            cc = vv = tt = "-"
        else:
            cc, vv, tt = c[1]
            tt = "?" if tt is None else tt
        agree = ""
        if r["classify"] != "timeout" and r["noprune"] not in ("timeout", "skipped"):
            agree = " (agrees)" if r["classify"][:2] == r["noprune"][:2] else " (DISAGREES)"
        hit = "-" if r["random_hit"] is None else "%.3f" % r["random_hit"]
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s | %s |" % (
            f, src, r["kind"], cc, vv, tt, "yes" if f.startswith("trivial/") else "",
            fmt_classify(r["classify"], r["classify_s"]),
            fmt_classify(r["noprune"], r["noprune_s"]), agree, hit,
            note + ("; uses " + ", ".join(r["uses"]) if r["uses"] else "")))


if __name__ == "__main__":
    main()
