use std::path::Path;

use super::*;
use crate::agents::Origin;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("/cfg/config.toml"), text)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn empty_file_is_the_defaults() {
    let c = parse("").unwrap();
    assert_eq!(c.settings, Settings::default());
    assert_eq!(c.agents.all().len(), crate::agents::BUILTINS.len());
    assert!(c.settings.native_probe_reply);
    assert!(c.settings.shell_integration);
    assert_eq!(c.settings.term_program, "iTerm.app");
    assert_eq!(c.settings.scrollback, 10_000);
}

#[test]
fn every_setting_is_read() {
    let c = parse(
        r##"
[terminal]
term_program = "WezTerm"
scrollback = 500
native_probe_reply = false
shell_integration = false
foreground = "#ffffff"
background = "#101010"

[ui]
prefix_key = "C-g"
wizard_shown = true

[notifications]
bell = false
desktop = false
osc_fallback = true

[hooks]
claude = true
opencode = false
"##,
    )
    .unwrap();
    let s = &c.settings;
    assert_eq!(s.term_program, "WezTerm");
    assert_eq!(s.scrollback, 500);
    assert!(!s.native_probe_reply);
    assert!(!s.shell_integration);
    assert_eq!(s.background, Some(Rgb(0x10, 0x10, 0x10)));
    assert_eq!(s.prefix_key.as_deref(), Some("C-g"));
    assert!(s.wizard_shown);
    assert_eq!(
        s.notifications,
        Notifications {
            bell: false,
            desktop: false,
            osc_fallback: true
        }
    );
    assert!(s.hooks_consent("claude"));
    assert!(!s.hooks_consent("opencode"));
    assert!(!s.hooks_consent("grok"));
    let rc = s.runtime_config();
    assert_eq!(rc.term_program, "WezTerm");
    assert!(!rc.replies.native_probe);
    assert_eq!(rc.replies.foreground, Rgb(0xff, 0xff, 0xff));
}

#[test]
fn clones_and_adjusted_builtins_are_read() {
    let c = parse(
        r#"
[agents.claude]
args = ["--verbose"]

[agents.claude-work]
base = "claude"
command = ["/opt/claude/bin/claude"]
args = ["--model", "opus"]
env = { CLAUDE_CONFIG_DIR = "/home/me/.claude-work" }

[agents.boxed]
base = "opencode"
docker = true
image = "ghcr.io/me/opencode:1"
docker_args = ["--network", "none"]
"#,
    )
    .unwrap();
    let claude = c.agents.get("claude").unwrap();
    assert_eq!(claude.command_line(&[]), ["claude", "--verbose"]);
    assert_eq!(claude.origin, Origin::Config);
    let work = c.agents.get("claude-work").unwrap();
    assert_eq!(work.base, "claude");
    assert_eq!(
        work.command_line(&[]),
        ["/opt/claude/bin/claude", "--model", "opus"]
    );
    assert_eq!(
        work.env,
        [(
            "CLAUDE_CONFIG_DIR".to_owned(),
            "/home/me/.claude-work".to_owned()
        )]
    );
    let boxed = c.agents.get("boxed").unwrap();
    assert_eq!(
        boxed.docker.as_ref().unwrap().image,
        "ghcr.io/me/opencode:1"
    );
    assert_eq!(boxed.docker.as_ref().unwrap().args, ["--network", "none"]);
    assert_eq!(boxed.command_line(&[]), ["opencode"]);
}

#[test]
fn syntax_errors_name_file_line_and_fix() {
    let e = err("[ui]\nwizard_shown = tru\n");
    assert!(e.starts_with("/cfg/config.toml:2:"), "{e}");
    assert!(e.contains("not valid TOML"), "{e}");
    assert!(e.contains("fix:"), "{e}");
}

#[test]
fn type_errors_name_the_key_and_its_line() {
    let e = err("[terminal]\n\nscrollback = \"lots\"\n");
    assert!(e.starts_with("/cfg/config.toml:3:14:"), "{e}");
    assert!(e.contains("`scrollback` must be a whole number"), "{e}");
    let e = err("[hooks]\nclaude = \"yes\"\n");
    assert!(e.starts_with("/cfg/config.toml:2:"), "{e}");
    assert!(e.contains("claude = true"), "{e}");
    let e = err("ui = 3\n");
    assert!(e.contains("`ui` must be a table"), "{e}");
    let e = err("[terminal]\nbackground = \"black\"\n");
    assert!(e.contains("#rrggbb"), "{e}");
}

#[test]
fn agent_errors_say_how_to_fix_them() {
    let e = err("[agents.mine]\ncommand = [\"x\"]\n");
    assert!(e.starts_with("/cfg/config.toml:1:"), "{e}");
    assert!(e.contains("has no `base`"), "{e}");
    assert!(e.contains("claude, codex, grok, agy, opencode"), "{e}");
    let e = err("[agents.mine]\nbase = \"emacs\"\n");
    assert!(e.starts_with("/cfg/config.toml:2:"), "{e}");
    assert!(e.contains("unknown base agent `emacs`"), "{e}");
    let e = err("[agents.mine]\nbase = \"claude\"\ndocker = true\n");
    assert!(e.contains("names no image"), "{e}");
    let e = err("[agents.claude]\nbase = \"codex\"\n");
    assert!(e.contains("adjusts the built-in claude"), "{e}");
    let e = err("[agents.\"a b\"]\nbase = \"claude\"\n");
    assert!(e.contains("may only use letters"), "{e}");
    let e = err("[agents.mine]\nbase = \"claude\"\ncommand = []\n");
    assert!(e.contains("`command` must name a program"), "{e}");
}

#[test]
fn missing_file_loads_defaults_and_unreadable_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::load(dir.path()).unwrap();
    assert_eq!(c.path, dir.path().join("config.toml"));
    assert_eq!(c.settings, Settings::default());
    std::fs::create_dir(dir.path().join("config.toml")).unwrap();
    let e = Config::load(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("config.toml is a directory, not a file: move it away"),
        "{e}"
    );
    assert!(!e.contains("may read"), "{e}");
}

#[test]
fn window_size_takes_the_three_policies_and_refuses_others() {
    assert_eq!(parse("").unwrap().settings.window_size, WindowSize::Latest);
    for policy in WindowSize::ALL {
        let text = format!("[server]\nwindow_size = \"{}\"\n", policy.name());
        assert_eq!(parse(&text).unwrap().settings.window_size, policy);
    }
    let e = err("[server]\nwindow_size = \"tiny\"\n");
    assert!(
        e.contains("window_size = \"tiny\" is not latest, smallest or largest"),
        "{e}"
    );
    assert!(e.contains("config.toml:2:"), "{e}");
}

#[test]
fn outer_fallback_takes_its_three_values_and_refuses_others() {
    assert_eq!(
        parse("").unwrap().settings.outer_fallback,
        OuterFallback::Progress
    );
    for f in OuterFallback::ALL {
        let text = format!("[notifications]\nouter_fallback = \"{}\"\n", f.name());
        assert_eq!(parse(&text).unwrap().settings.outer_fallback, f);
    }
    let e = err("[notifications]\nouter_fallback = \"loud\"\n");
    assert!(
        e.contains("outer_fallback = \"loud\" is not progress, notify or none"),
        "{e}"
    );
    assert!(e.contains("config.toml:2:"), "{e}");
}

#[test]
fn hosts_are_read_with_their_defaults() {
    let c = parse(
        "[hosts.devbox]\ndestination = \"me@devbox\"\n\n[hosts.gpu]\ndestination = \"gpu\"\nssh_args = [\"-p\", \"2222\"]\ntermic = \"/opt/termic\"\n",
    )
    .unwrap();
    assert_eq!(c.hosts.len(), 2);
    assert_eq!(c.hosts[0].name, "devbox");
    assert_eq!(c.hosts[0].termic, "termic");
    assert!(c.hosts[0].ssh_args.is_empty());
    assert_eq!(c.hosts[1].ssh_args, ["-p", "2222"]);
    assert_eq!(c.hosts[1].termic, "/opt/termic");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

/// A destination or a remote path that ssh or a shell would read as an
/// option is an error naming the line, never passed on.
#[test]
fn a_host_that_could_inject_an_option_is_refused() {
    let e = err("[hosts.x]\ndestination = \"-oProxyCommand=sh\"\n");
    assert!(e.contains(":2:") && e.contains("starts with `-`"), "{e}");
    let e = err("[hosts.x]\ndestination = \"me@box -p 1\"\n");
    assert!(e.contains("space or a control character"), "{e}");
    let e = err("[hosts.x]\ndestination = \"me@box\"\ntermic = \"-x\"\n");
    assert!(e.contains("starts with `-`"), "{e}");
    let e = err("[hosts.x]\ndestination = \"me@box\"\ntermic = \"a\\nb\"\n");
    assert!(e.contains("control character"), "{e}");
    let e = err("[hosts.x]\nssh_args = []\n");
    assert!(e.contains("has no `destination`"), "{e}");
    let e = err("[hosts.\"a:b\"]\ndestination = \"box\"\n");
    assert!(e.contains("host name `a:b`"), "{e}");
    let c = parse("[hosts.x]\ndestination = \"box\"\nport = 22\n").unwrap();
    assert!(
        c.warnings[0]
            .message
            .contains("unknown key `port` in [hosts.x]"),
        "{:?}",
        c.warnings
    );
}

/// `hosts add` keeps every byte the user wrote and refuses a name in use.
#[test]
fn adding_a_host_keeps_the_users_bytes() {
    let p = Path::new("/cfg/config.toml");
    let text = "# mine\n[ui]\nwizard_shown   = true # seen\n";
    let out = hosts::add(p, text, "devbox", "me@devbox").unwrap();
    assert!(out.starts_with(text), "{out}");
    assert_eq!(
        &out[text.len()..],
        "\n[hosts.devbox]\ndestination = \"me@devbox\"\n"
    );
    let c = parse(&out).unwrap();
    assert_eq!(c.hosts[0].destination, "me@devbox");
    let e = hosts::add(p, &out, "devbox", "other")
        .unwrap_err()
        .to_string();
    assert!(e.contains("already in the file"), "{e}");
    let e = hosts::add(p, "", "x", "-oProxyCommand=sh")
        .unwrap_err()
        .to_string();
    assert!(e.contains("starts with `-`"), "{e}");
    let e = hosts::add(p, "", "a b", "box").unwrap_err().to_string();
    assert!(e.contains("host name"), "{e}");
    // A second host goes under the same [hosts].
    let two = hosts::add(p, &out, "gpu", "gpu").unwrap();
    assert_eq!(parse(&two).unwrap().hosts.len(), 2);
}

/// `hosts rm` (2026-12-06) takes out that host's table and keeps the rest
/// of the file; a name not in it is an error.
#[test]
fn removing_a_host_keeps_the_rest_of_the_file() {
    let p = Path::new("/cfg/config.toml");
    let text = "# mine
[ui]
wizard_shown   = true # seen
";
    let two = hosts::add(p, text, "devbox", "me@devbox").unwrap();
    let two = hosts::add(p, &two, "gpu", "gpu").unwrap();
    let one = hosts::remove(p, &two, "devbox").unwrap();
    assert!(one.starts_with(text), "{one}");
    let c = parse(&one).unwrap();
    let names: Vec<&str> = c.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["gpu"]);
    let e = hosts::remove(p, &one, "devbox").unwrap_err().to_string();
    assert!(e.contains("no host named `devbox`"), "{e}");
    let none = hosts::remove(p, &one, "gpu").unwrap();
    assert!(parse(&none).unwrap().hosts.is_empty());
    assert!(none.starts_with(text), "{none}");
}

#[test]
fn push_urls_are_http_or_https_and_a_wrong_one_names_the_key_and_the_fix() {
    let c = parse(
        "[notifications]\nntfy = \"https://ntfy.sh/mytopic\"\nntfy_token = \"tk\"\n\
         webhook = \"http://127.0.0.1:9000/hook\"\npush_contact = \"https://me.example\"\n",
    )
    .unwrap();
    assert_eq!(
        c.settings.push.ntfy.as_deref(),
        Some("https://ntfy.sh/mytopic")
    );
    assert_eq!(c.settings.push.ntfy_token.as_deref(), Some("tk"));
    assert_eq!(
        c.settings.push.webhook.as_deref(),
        Some("http://127.0.0.1:9000/hook")
    );
    assert_eq!(c.settings.push.push_contact, "https://me.example");
    let e = err("[notifications]\nwebhook = \"file:///etc/passwd\"\n");
    assert!(
        e.contains("/cfg/config.toml:2:")
            && e.contains("webhook = \"file:///etc/passwd\"")
            && e.contains("only http:// and https://")
            && e.contains("fix: write `webhook = \"https://host/path\"`"),
        "{e}"
    );
    let e = err("[notifications]\nntfy = \"ntfy.sh/topic\"\n");
    assert!(e.contains("ntfy = ") && e.contains("fix:"), "{e}");
    let e = err("[notifications]\npush_contact = \"me@example.com\"\n");
    assert!(e.contains("not a mailto: or https: URL"), "{e}");
    // Empty is none.
    let c = parse("[notifications]\nwebhook = \"\"\n").unwrap();
    assert_eq!(c.settings.push.webhook, None);
}

#[test]
fn continue_after_limit_is_off_by_default_and_takes_a_bool() {
    assert!(!parse("").unwrap().settings.continue_after_limit);
    let on = parse("[tasks]\ncontinue_after_limit = true\n").unwrap();
    assert!(on.settings.continue_after_limit);
    let e = err("[tasks]\ncontinue_after_limit = \"yes\"\n");
    assert!(e.contains("continue_after_limit"), "{e}");
}

#[test]
fn review_merge_takes_its_four_values_and_refuses_others() {
    use termic_review::merge::How;
    assert_eq!(parse("").unwrap().settings.review_merge, How::Ff);
    for how in How::ALL {
        let text = format!("[review]\nmerge = \"{}\"\n", how.as_str());
        assert_eq!(parse(&text).unwrap().settings.review_merge, how);
    }
    let e = err("[review]\nmerge = \"octopus\"\n");
    assert!(
        e.contains("merge = \"octopus\" is not ff, rebase, squash or pr"),
        "{e}"
    );
}
