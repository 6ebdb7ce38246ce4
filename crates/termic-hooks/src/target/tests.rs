use std::os::unix::fs::symlink;

use super::*;

struct Fx {
    _tmp: tempfile::TempDir,
    paths: Paths,
    repo: PathBuf,
}

fn fx() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let paths = Paths {
        home: root.join("home"),
        data_dir: root.join("data"),
    };
    let repo = root.join("repo");
    std::fs::create_dir_all(&paths.home).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    Fx {
        _tmp: tmp,
        paths,
        repo,
    }
}

fn guard(fx: &Fx) -> ForbiddenRoots {
    ForbiddenRoots::new([fx.repo.clone(), fx.repo.join("worktrees/t1")]).unwrap()
}

#[test]
fn docker_target_writes_the_container_path_host_target_writes_the_host_path() {
    let fx = fx();
    let host = InstallTarget::host(AgentSchema::CLAUDE, &fx.paths, &guard(&fx)).unwrap();
    let docker = InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::CLAUDE),
        &fx.paths,
        &guard(&fx),
    )
    .unwrap();
    let rel = "termic-hooks/stop.sh";
    assert_eq!(
        host.path(rel),
        fx.paths.home.join(".claude/termic-hooks/stop.sh")
    );
    assert_eq!(
        host.agent_path(rel),
        fx.paths
            .home
            .join(".claude/termic-hooks/stop.sh")
            .to_string_lossy()
    );
    assert_eq!(
        docker.path(rel),
        fx.paths
            .data_dir
            .join("docker-agents/claude/termic-hooks/stop.sh")
    );
    assert_eq!(docker.agent_path(rel), "/root/.claude/termic-hooks/stop.sh");
    assert_eq!(container_config_dir(AgentSchema::CLAUDE), "/root/.claude");
    assert_eq!(docker.label(), "docker:claude");
    assert_eq!(host.label(), "host");
}

#[test]
fn a_cloned_agent_resolves_its_own_dir_but_claudes_schema_shape() {
    let fx = fx();
    let clone = AgentRef {
        id: "claude-work".into(),
        base: Some("claude".into()),
    };
    let agents = [
        AgentRef::builtin(AgentSchema::CLAUDE),
        clone.clone(),
        AgentRef::builtin(AgentSchema::GROK),
    ];
    let targets = targets_for(AgentSchema::CLAUDE, &agents, &fx.paths, &guard(&fx)).unwrap();
    let labels: Vec<String> = targets.iter().map(InstallTarget::label).collect();
    assert_eq!(labels, ["host", "docker:claude", "docker:claude-work"]);
    let t = &targets[2];
    assert_eq!(t.schema(), AgentSchema::CLAUDE);
    assert_eq!(t.agent_id(), "claude-work");
    assert_eq!(t.dir(), fx.paths.data_dir.join("docker-agents/claude-work"));
    assert_eq!(
        t.agent_path("termic-hooks/stop.sh"),
        "/root/.claude/termic-hooks/stop.sh"
    );
    assert!(t.owned_rel_paths().contains(&"settings.json".to_string()));
    // A clone of nothing termic knows has no schema.
    let stray = AgentRef {
        id: "x".into(),
        base: Some("emacs".into()),
    };
    let err = InstallTarget::docker(&stray, &fx.paths, &guard(&fx)).unwrap_err();
    assert!(matches!(err, TargetError::NoSchema { .. }));
    assert_eq!(
        err.to_string(),
        "agent \"x\" is based on \"emacs\", which has no hooks; termic installs hooks for \
         claude, grok, agy, opencode, gemini, copilot and qwen. Set base to one of them in its \
         [agents.x] table, or leave its hooks off"
    );
    for bad in ["", "..", "a/b", "a b"] {
        let agent = AgentRef {
            id: bad.into(),
            base: Some("claude".into()),
        };
        assert!(matches!(
            InstallTarget::docker(&agent, &fx.paths, &guard(&fx)),
            Err(TargetError::BadAgentId(_))
        ));
    }
}

#[test]
fn every_install_target_resolves_to_a_global_or_termic_owned_path() {
    let fx = fx();
    let clone = AgentRef {
        id: "oc2".into(),
        base: Some("opencode".into()),
    };
    for schema in AgentSchema::all() {
        for t in targets_for(schema, std::slice::from_ref(&clone), &fx.paths, &guard(&fx)).unwrap()
        {
            let base = match t.kind() {
                TargetKind::Host => fx.paths.home.join(schema.home_config_dir()),
                TargetKind::Docker { agent_id } => {
                    fx.paths.data_dir.join("docker-agents").join(agent_id)
                }
            };
            for rel in t.owned_rel_paths() {
                let p = t.path(&rel);
                assert!(
                    p.starts_with(&base),
                    "{} escapes {}",
                    p.display(),
                    base.display()
                );
                assert!(!p.starts_with(&fx.repo));
            }
        }
    }

    // A HOME inside the repository: refused for every agent.
    let inside = Paths {
        home: fx.repo.join("sub"),
        data_dir: fx.paths.data_dir.clone(),
    };
    for schema in AgentSchema::all() {
        let err = InstallTarget::host(schema, &inside, &guard(&fx)).unwrap_err();
        assert!(matches!(err, TargetError::InsideProject { .. }), "{err}");
    }
    // A data dir inside a worktree: Docker targets refused.
    let data_inside = Paths {
        home: fx.paths.home.clone(),
        data_dir: fx.repo.join("worktrees/t1/.termic"),
    };
    assert!(InstallTarget::docker(
        &AgentRef::builtin(AgentSchema::AGY),
        &data_inside,
        &guard(&fx)
    )
    .is_err());

    // The agent's config dir a symlink into the repo (the worktree trick).
    std::fs::create_dir_all(fx.repo.join(".claude")).unwrap();
    symlink(fx.repo.join(".claude"), fx.paths.home.join(".claude")).unwrap();
    assert!(InstallTarget::host(AgentSchema::CLAUDE, &fx.paths, &guard(&fx)).is_err());

    // A single config file symlinked into the repo, even dangling.
    std::fs::create_dir_all(fx.paths.home.join(".grok/hooks")).unwrap();
    symlink(
        fx.repo.join("missing/termic.json"),
        fx.paths.home.join(".grok/hooks/termic.json"),
    )
    .unwrap();
    let err = InstallTarget::host(AgentSchema::GROK, &fx.paths, &guard(&fx)).unwrap_err();
    assert!(err.to_string().contains("never a project's"), "{err}");

    // A relative or dotted spelling of the repo still matches.
    let dotted = ForbiddenRoots::new([fx.repo.join("a/..")]).unwrap();
    assert_eq!(dotted.roots(), std::slice::from_ref(&fx.repo));
    // Unrelated agents are unaffected.
    assert!(InstallTarget::host(AgentSchema::OPENCODE, &fx.paths, &guard(&fx)).is_ok());
}

fn facts(home: &str, cwd: &str, repo: Option<&str>, worktrees: &[&str]) -> ProjectFacts {
    ProjectFacts {
        home: home.into(),
        cwd: cwd.into(),
        repo_root: repo.map(PathBuf::from),
        worktree_roots: worktrees.iter().map(PathBuf::from).collect(),
    }
}

#[test]
fn the_project_path_rule_exempts_home_and_what_holds_it_never_a_project_inside_it() {
    let roots = |f: &ProjectFacts| project_roots(f);
    let p = |s: &str| PathBuf::from(s);
    // Started from HOME, from `/` and from /home: no project, ~/.claude is global.
    assert!(roots(&facts("/home/u", "/home/u", None, &[])).is_empty());
    assert!(roots(&facts("/home/u", "/", None, &[])).is_empty());
    assert!(roots(&facts("/home/u", "/home", None, &[])).is_empty());
    // A dotfiles repository at ~ is the global config too.
    assert!(roots(&facts("/home/u", "/home/u", Some("/home/u"), &["/home/u"])).is_empty());
    // A non-repository folder inside HOME (with a .claude of its own or not).
    assert_eq!(
        roots(&facts("/home/u", "/home/u/proj", None, &[])),
        [p("/home/u/proj")]
    );
    // From a subfolder of a repository: the folder, the repository, its worktrees.
    assert_eq!(
        roots(&facts(
            "/home/u",
            "/src/r/sub",
            Some("/src/r"),
            &["/src/r", "/data/wt/t1"]
        )),
        [p("/src/r/sub"), p("/src/r"), p("/data/wt/t1")]
    );
    // A repository that holds HOME deeper in its tree stays a project.
    assert_eq!(roots(&facts("/r/home", "/r", Some("/r"), &[])), [p("/r")]);
    // A folder inside a dotfiles repository at ~ is still a project.
    assert_eq!(
        roots(&facts("/home/u", "/home/u/proj", Some("/home/u"), &[])),
        [p("/home/u/proj")]
    );
}

#[test]
fn the_rule_decides_on_resolved_paths_and_the_guard_follows_it() {
    let fx = fx();
    // HOME reached through a link is still HOME: started from it, nothing is refused.
    let root = fx.paths.home.parent().unwrap().to_path_buf();
    symlink(&fx.paths.home, root.join("home-link")).unwrap();
    let from_home = ForbiddenRoots::for_project(&ProjectFacts {
        home: root.join("home-link"),
        cwd: fx.paths.home.clone(),
        repo_root: None,
        worktree_roots: vec![],
    })
    .unwrap();
    assert!(from_home.roots().is_empty());
    for schema in AgentSchema::all() {
        assert!(InstallTarget::host(schema, &fx.paths, &from_home).is_ok());
    }
    // A project inside HOME: ~/.claude linked into its own .claude is refused.
    let proj = fx.paths.home.join("proj");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    symlink(proj.join(".claude"), fx.paths.home.join(".claude")).unwrap();
    let from_proj = ForbiddenRoots::for_project(&ProjectFacts {
        home: fx.paths.home.clone(),
        cwd: proj.clone(),
        repo_root: None,
        worktree_roots: vec![],
    })
    .unwrap();
    let err = InstallTarget::host(AgentSchema::CLAUDE, &fx.paths, &from_proj).unwrap_err();
    assert!(matches!(err, TargetError::InsideProject { .. }), "{err}");
}
