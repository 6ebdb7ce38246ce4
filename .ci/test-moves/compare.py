"""Compares the workspace's test names before and after the consolidation
(lists from list-tests.sh), and the tests each .ci/run command selects
(lists from ci-selection.sh). Old (crate, binary) pairs map to a new binary
and a module prefix; every old test must be found under its new name, with the
same ignored state, and nothing new may appear."""
import sys
from collections import Counter

MOVES = {
    # crate, old binary: new binary, module prefix
    ("termic", "cli_help"): ("cli", "help::"),
    ("termic", "config_cli"): ("cli", "config::"),
    ("termic", "hooks_cli"): ("cli", "hooks::"),
    ("termic", "hooks_odd_files"): ("cli", "hooks_odd_files::"),
    ("termic", "runtime_engine"): ("runtime", "engine::"),
    ("termic", "runtime_env"): ("runtime", "env::"),
    ("termic", "runtime_record"): ("runtime", "record::"),
    ("termic", "runtime_screen_rules"): ("runtime", "screen_rules::"),
    ("termic", "runtime_spawn"): ("runtime", "spawn::"),
    ("termic", "runtime_worktree"): ("runtime", "worktree::"),
    ("termic", "eventlog_flood"): ("runtime", "eventlog_flood::"),
    ("termic", "signal_tap"): ("runtime", "signal_tap::"),
    ("termic", "screen_fast_path"): ("runtime", "screen_fast_path::"),
    ("termic", "vte_utf8"): ("runtime", "vte_utf8::"),
    ("termic", "replies_props"): ("runtime", "replies_props::"),
    ("termic", "server_attach"): ("server", "attach::"),
    ("termic", "server_cli"): ("server", "cli::"),
    ("termic", "server_protocol_props"): ("server", "protocol_props::"),
    ("termic", "tui_e2e"): ("tui", "e2e::"),
    ("termic", "tui_failed_start"): ("tui", "failed_start::"),
    ("termic", "tui_input"): ("tui", "input::"),
    ("termic", "tui_process_hygiene"): ("tui", "process_hygiene::"),
    ("termic", "tui_project_paths"): ("tui", "project_paths::"),
    ("termic", "tui_screens"): ("tui", "screens::"),
    ("termic", "tui_workspace"): ("tui", "workspace::"),
    ("termic", "tui_worktree_force"): ("tui", "worktree_force::"),
    ("termic", "notify_dbus"): ("tui", "notify_dbus::"),
    ("termic", "hostile_replies"): ("hostile", "replies::"),
    ("termic", "hostile_screen"): ("hostile", "screen::"),
    ("termic", "tui_hostile"): ("hostile", "tui::"),
    ("termic", "real_agents"): ("real_agents", "tasks::"),
    ("termic", "real_agents_binary"): ("real_agents", "binary::"),
    ("termic", "real_agents_error_screen"): ("real_agents", "error_screen::"),
    ("termic", "real_agents_errors"): ("real_agents", "errors::"),
    ("termic", "real_agents_latency"): ("real_agents", "latency::"),
    ("termic", "real_agents_matrix"): ("real_agents", "matrix::"),
    ("termic", "real_agents_more"): ("real_agents", "more::"),
    ("termic", "real_agents_screen"): ("real_agents", "screen::"),
    ("termic", "docker_tasks"): ("e2e_specs", "docker_tasks::"),
    ("termic-fakemodel", "real_agents_native"): ("fakemodel", "native::"),
    ("termic-fakemodel", "real_agents_errors"): ("fakemodel", "errors::"),
    ("termic-fakemodel", "real_agents_more"): ("fakemodel", "more::"),
    ("termic-fakemodel", "server"): ("fakemodel", "server::"),
    ("termic-signal", "engine_rules"): ("signal", "engine_rules::"),
    ("termic-signal", "engine_props"): ("signal", "engine_props::"),
    ("termic-signal", "scanner_hostile"): ("signal", "scanner_hostile::"),
    ("termic-signal", "scanner_profiles"): ("signal", "scanner_profiles::"),
    ("termic-signal", "scanner_split"): ("signal", "scanner_split::"),
    ("termic-signal", "traces"): ("signal", "traces::"),
}
for b in ["concurrent_soak", "crash_points", "install_corpus", "install_props", "install_roundtrip",
          "odd_files", "opencode_plugin", "scripts", "status", "write_window", "writer_suite"]:
    MOVES[("termic-hooks", b)] = ("hooks", b + "::")
# docker_tasks compiled three of e2e_specs's modules into its own binary with
# #[path]: the same tests, now one copy in e2e_specs.
SHARED = {
    ("termic", "docker_tasks", "support::"): ("e2e_specs", "support::"),
    ("termic", "docker_tasks", "host_latency::"): ("e2e_specs", "latency::"),
    ("termic", "docker_tasks", "binary::"): ("e2e_specs", "binary::"),
}

def new_name(crate, binary, test):
    for (c, b, pre), (nb, npre) in SHARED.items():
        if (c, b) == (crate, binary) and test.startswith(pre):
            return (crate, nb, npre + test[len(pre):])
    if (crate, binary) in MOVES:
        nb, pre = MOVES[(crate, binary)]
        return (crate, nb, pre + test)
    return (crate, binary, test)

def read_all(path):
    return [tuple(l.split()) for l in open(path) if l.strip()]

def read_ci(path):
    cmds, cur = [], None
    for l in open(path):
        if l.startswith("#"):
            cur = (l.strip(), set()); cmds.append(cur)
        elif l.strip():
            cur[1].add(tuple(l.split()))
    return cmds

def compare(label, old, new):
    mapped = Counter(old)
    ok = True
    missing, extra = mapped - Counter(new), Counter(new) - mapped
    for t in sorted(missing): print(f"  {label}: MISSING {t}"); ok = False
    for t in sorted(extra): print(f"  {label}: EXTRA {t}"); ok = False
    return ok

before, after = read_all(sys.argv[1]), read_all(sys.argv[2])
old = [new_name(c, b, t) + (s,) for c, b, t, s in before]
dups = len(old) - len(set(old))
print(f"all tests: before {len(before)} ({sum(1 for x in before if x[3] == 'ignored')} ignored), "
      f"after {len(after)} ({sum(1 for x in after if x[3] == 'ignored')} ignored); "
      f"{dups} before were the same test compiled into two binaries")
ok = compare("all", sorted(set(old)), after)
print(f"binaries: before {len({(c, b) for c, b, _, _ in before})}, after {len({(c, b) for c, b, _, _ in after})}")
if len(sys.argv) > 3:
    cb, ca = read_ci(sys.argv[3]), read_ci(sys.argv[4])
    if len(cb) != len(ca):
        print(f"ci: {len(cb)} commands before, {len(ca)} after"); ok = False
    for (hb, sb), (ha, sa) in zip(cb, ca):
        o = sorted({new_name(*t) for t in sb})
        good = compare(ha.split()[0], o, sorted(sa))
        print(f"{'same' if good else 'DIFFERENT'}: {len(sb)} before, {len(sa)} after\n  before: {hb}\n  after:  {ha}")
        ok &= good
print("OK" if ok else "DIFFERENCES")
sys.exit(0 if ok else 1)
