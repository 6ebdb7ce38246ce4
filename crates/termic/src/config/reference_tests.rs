//! The key table, the parser, the unknown-key check and docs/config.md agree.

use std::path::Path;

use super::keys::{AGENT_KEYS, SETTING_KEYS};
use super::reference::{example, reference, section_of};
use super::*;

fn parse(text: &str) -> Config {
    Config::parse(Path::new("/cfg/config.toml"), text).unwrap()
}

#[test]
fn every_key_in_the_table_is_read_by_the_parser_into_its_setting() {
    let defaults = Settings::default();
    for k in SETTING_KEYS {
        let c = parse(&format!("[{}]\n{} = {}\n", k.section, k.name, k.example));
        assert!(c.warnings.is_empty(), "{}: {:?}", k.name, c.warnings);
        assert_eq!((k.show)(&c.settings), k.example, "{} was not read", k.name);
        assert_ne!(
            (k.show)(&defaults),
            k.example,
            "{}: the example must differ from the default to prove it is read",
            k.name
        );
    }
}

#[test]
fn the_example_with_every_key_loads_without_a_warning() {
    let c = parse(&example());
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let a = c.agents.get("claude-work").expect("the example's agent");
    assert_eq!(a.base, "claude");
    assert_eq!(a.args, ["--model", "opus"]);
    let docker = a.docker.as_ref().expect("docker = true");
    assert_eq!(docker.args, ["--network", "host"]);
    assert!(c.settings.hooks_consent("claude"));
    assert_eq!(
        AGENT_KEYS.len(),
        7,
        "a new agent key needs a line in the example"
    );
}

#[test]
fn unknown_keys_warn_with_file_line_and_the_closest_key() {
    let c = parse(
        "[ui]\nprefx_key = \"C-a\"\n\n[terminal]\nscrolback = 5\nwizard_shown = true\n\
         [notifications]\nzzzzzz = 1\n[agents.mine]\nbase = \"claude\"\nimgae = \"x\"\n\
         [termnial]\n",
    );
    let w: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        [
            "/cfg/config.toml:2: unknown key `prefx_key` in [ui], ignored; did you mean `prefix_key`?",
            "/cfg/config.toml:5: unknown key `scrolback` in [terminal], ignored; did you mean `scrollback`?",
            "/cfg/config.toml:6: `wizard_shown` belongs in [ui], not [terminal]; it was ignored",
            "/cfg/config.toml:8: unknown key `zzzzzz` in [notifications], ignored; valid here: bell, desktop, osc_fallback, ntfy, ntfy_token, webhook, push_contact, outer_fallback",
            "/cfg/config.toml:11: unknown key `imgae` in [agents.mine], ignored; did you mean `image`?",
            "/cfg/config.toml:12: unknown section `termnial`, ignored; did you mean `terminal`?",
        ]
    );
    // Still loads: the known keys are read, the unknown ones are not.
    assert_eq!(c.settings.prefix_key, None);
    assert_eq!(c.settings.scrollback, Settings::default().scrollback);
    // A key at the top level names its section.
    let c = parse("prefix_key = \"C-a\"\n");
    assert_eq!(
        c.warnings[0].to_string(),
        "/cfg/config.toml:1: `prefix_key` belongs in a [ui] section; it was ignored"
    );
    // [hooks] takes any agent id.
    assert!(parse("[hooks]\nmy-agent = true\n").warnings.is_empty());
}

#[test]
fn a_prefix_key_termic_does_not_know_is_an_error_with_the_line() {
    let e = Config::parse(
        Path::new("/cfg/config.toml"),
        "[ui]\n\nprefix_key = \"alt-x\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("/cfg/config.toml:3:"), "{e}");
    assert!(
        e.contains("prefix_key = \"alt-x\" is not a key termic knows"),
        "{e}"
    );
}

#[test]
fn a_prefix_key_that_is_also_enter_escape_tab_backspace_or_interrupt_is_refused() {
    for (spec, other) in [
        ("C-m", "Enter"),
        ("C-j", "Enter (line feed)"),
        ("C-[", "Escape"),
        ("C-3", "Escape"),
        ("C-i", "Tab"),
        ("C-h", "Backspace"),
        ("C-?", "Backspace"),
        ("C-c", "Ctrl-c, which interrupts the task"),
    ] {
        let e = Config::parse(
            Path::new("/cfg/config.toml"),
            &format!("[ui]\nprefix_key = \"{spec}\"\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("/cfg/config.toml:2:"), "{e}");
        assert!(
            e.contains(&format!("prefix_key = \"{spec}\" is also {other}:")),
            "{spec}: {e}"
        );
    }
    // The default and the usual choices are fine.
    for spec in ["C-]", "C-a", "C-b", "C-g", "C-@"] {
        let c = parse(&format!("[ui]\nprefix_key = \"{spec}\"\n"));
        assert_eq!(c.settings.prefix_key.as_deref(), Some(spec));
    }
}

/// docs/config.md's reference section is exactly what the table prints.
/// To update it: `TERMIC_UPDATE_DOCS=1 cargo test -p termic --lib docs_config_md`.
#[test]
fn docs_config_md_matches_the_key_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let want = reference();
    let want = want.trim_end();
    let have = section_of(&doc).expect("docs/config.md has the generated reference markers");
    if have != want && std::env::var_os("TERMIC_UPDATE_DOCS").is_some() {
        std::fs::write(&path, doc.replace(have, want)).unwrap();
        return;
    }
    assert!(
        have == want,
        "docs/config.md's reference is out of date with crates/termic/src/config/keys.rs; \
         run `TERMIC_UPDATE_DOCS=1 cargo test -p termic --lib docs_config_md` and commit it"
    );
    for k in SETTING_KEYS {
        assert!(have.contains(&format!("| `{}` |", k.name)), "{}", k.name);
    }
}

#[test]
fn read_leniently_a_wrong_value_keeps_its_default_and_the_rest_is_read() {
    let text = "[terminal]\nscrollback = \"lots\"\nterm_program = \"xterm\"\n\
                [ui]\nprefix_key = \"C-m\"\n\
                [agents.bad]\nbase = 3\n[agents.good]\nbase = \"claude\"\n";
    assert!(Config::parse(Path::new("/cfg/config.toml"), text).is_err());
    let c = Config::parse_lenient(Path::new("/cfg/config.toml"), text);
    assert_eq!(c.settings.scrollback, Settings::default().scrollback);
    assert_eq!(c.settings.term_program, "xterm", "the good key is read");
    assert_eq!(c.settings.prefix_key, None);
    assert!(c.agents.get("good").is_some());
    assert!(c.agents.get("bad").is_none());
    let w: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].starts_with("/cfg/config.toml:2: "), "{w:?}");
    assert!(
        w.iter().all(|w| w.contains("the default is used (fix: ")),
        "{w:?}"
    );
    // Not TOML at all: every default, one warning.
    let c = Config::parse_lenient(Path::new("/cfg/config.toml"), "[ui\n");
    assert_eq!(c.settings, Settings::default());
    assert_eq!(c.warnings.len(), 1);
}
