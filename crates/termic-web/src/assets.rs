//! The page, served from the binary: plain HTML, CSS and JS, and xterm.js
//! vendored from npm (assets/README.md says which version and how to
//! update it). None of them holds data: the data comes over the WebSocket.

/// The file for a request path and its content type.
pub fn get(path: &str) -> Option<(&'static [u8], &'static str)> {
    const HTML: &str = "text/html; charset=utf-8";
    const JS: &str = "text/javascript; charset=utf-8";
    const CSS: &str = "text/css; charset=utf-8";
    Some(match path {
        "/" | "/index.html" => (include_bytes!("../assets/index.html"), HTML),
        "/pair" => (include_bytes!("../assets/pair.html"), HTML),
        "/app.js" => (include_bytes!("../assets/app.js"), JS),
        "/pair.js" => (include_bytes!("../assets/pair.js"), JS),
        "/sw.js" => (include_bytes!("../assets/sw.js"), JS),
        "/style.css" => (include_bytes!("../assets/style.css"), CSS),
        "/xterm.js" => (include_bytes!("../assets/xterm.js"), JS),
        "/xterm.css" => (include_bytes!("../assets/xterm.css"), CSS),
        "/addon-fit.js" => (include_bytes!("../assets/addon-fit.js"), JS),
        "/manifest.webmanifest" => (
            include_bytes!("../assets/manifest.webmanifest"),
            "application/manifest+json",
        ),
        "/icon.svg" => (include_bytes!("../assets/icon.svg"), "image/svg+xml"),
        _ => return None,
    })
}
