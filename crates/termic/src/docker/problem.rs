//! Why a Docker task cannot start, from what `docker image inspect` said:
//! one plain sentence with the fix, never the client's raw output. Text
//! from config.toml or from docker is shown on termic's screen and must not
//! drive it: it is cleaned ([`clean_line`]).

use termic_signal::text::clean_line;

/// What stands between a Docker agent and its container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DockerProblem {
    #[error(
        "the Docker engine is not running (docker cannot reach it): start it \
         (`sudo systemctl start docker`, or `dockerd &`), then start the task again"
    )]
    EngineDown,
    #[error(
        "docker is not allowed to use the Docker engine: add your user to the docker group \
         (`sudo usermod -aG docker $USER`, then log in again)"
    )]
    NoPermission,
    #[error("the Docker engine did not answer within {0} s: check it with `docker info`")]
    EngineSilent(u64),
    #[error(
        "the Docker image {image} is not on this machine: pull or build it \
         (`docker pull {image}`), or fix `image` in [agents.{agent}] in config.toml"
    )]
    ImageMissing { agent: String, image: String },
    #[error("`image` in [agents.{agent}] in config.toml is not an image name: {image}")]
    BadImage { agent: String, image: String },
    #[error("docker could not check the image {image}: {detail}")]
    Other { image: String, detail: String },
}

/// Longest piece of docker's own words quoted in [`DockerProblem::Other`].
const DETAIL_MAX: usize = 160;

/// The problem `docker image inspect` reported for `agent`'s `image`
/// (`None` when it succeeded). Pure: the exit status and stderr as given.
pub fn classify(agent: &str, image: &str, success: bool, stderr: &str) -> Option<DockerProblem> {
    if success {
        return None;
    }
    let lower = stderr.to_ascii_lowercase();
    let has = |s: &str| lower.contains(s);
    let image = clean_line(image).into_owned();
    let agent = agent.to_owned();
    Some(
        if has("cannot connect to the docker daemon") || has("is the docker daemon running") {
            DockerProblem::EngineDown
        } else if has("permission denied") && has("docker") {
            DockerProblem::NoPermission
        } else if has("invalid reference format") {
            // Before "no such image": Docker 20.10 says both for a bad name.
            DockerProblem::BadImage { agent, image }
        } else if has("no such image") || has("no such object") {
            DockerProblem::ImageMissing { agent, image }
        } else {
            let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let mut detail = clean_line(first.trim()).into_owned();
            if detail.chars().count() > DETAIL_MAX {
                detail = detail.chars().take(DETAIL_MAX).collect::<String>() + "...";
            }
            if detail.is_empty() {
                detail = "it failed and said nothing".into();
            }
            DockerProblem::Other { image, detail }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(stderr: &str) -> String {
        classify("box", "me/agent:1", false, stderr)
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_stopped_engine_says_start_it() {
        // Docker 20.10 and 28 word it the same way.
        let e = problem(
            "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
        );
        assert!(e.starts_with("the Docker engine is not running"), "{e}");
        assert!(e.contains("dockerd &"), "{e}");
        assert!(!e.contains("unix://"), "no raw docker text: {e}");
    }

    #[test]
    fn a_missing_image_names_it_and_the_pull_command() {
        for stderr in [
            "Error: No such image: me/agent:1\n",
            "Error response from daemon: No such image: me/agent:1\n",
            "Error: No such object: me/agent:1\n",
        ] {
            let e = problem(stderr);
            assert_eq!(
                e,
                "the Docker image me/agent:1 is not on this machine: pull or build it \
                 (`docker pull me/agent:1`), or fix `image` in [agents.box] in config.toml"
            );
        }
    }

    #[test]
    fn permission_and_bad_names_and_the_rest() {
        let e = problem("permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get ...");
        assert!(e.contains("docker group"), "{e}");
        let e = classify(
            "box",
            "Bad Name",
            false,
            "Error: invalid reference format: repository name must be lowercase\n",
        )
        .unwrap()
        .to_string();
        assert!(e.contains("is not an image name: Bad Name"), "{e}");
        // Docker 20.10's wording of the same.
        let e = classify(
            "box",
            "Bad Name",
            false,
            "Error response from daemon: no such image: Bad Name: invalid reference format: repository name must be lowercase\n",
        )
        .unwrap()
        .to_string();
        assert!(e.contains("is not an image name: Bad Name"), "{e}");
        let e = problem("\n\x1b[31mweird failure\x1b[0m and a very long tail\n");
        assert!(
            e.starts_with("docker could not check the image me/agent:1: [31mweird"),
            "{e}"
        );
        assert!(!e.contains('\x1b'), "{e:?}");
        let e = problem(&"x".repeat(1000));
        assert!(e.len() < 260, "{e}");
        assert_eq!(
            problem(""),
            "docker could not check the image me/agent:1: it failed and said nothing"
        );
        assert_eq!(classify("box", "i", true, "anything"), None);
    }

    #[test]
    fn an_image_name_with_control_bytes_is_shown_inert() {
        let p = classify("box", "me/\x1b]0;pwned\x07x", false, "Error: No such image").unwrap();
        let e = p.to_string();
        assert!(!e.contains('\x1b') && !e.contains('\x07'), "{e:?}");
    }
}
