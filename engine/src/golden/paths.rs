//! Paths in golden files: the scenario's, relative to the golden file.

use std::path::{Path, PathBuf};

/// A path to `target` relative to directory `base` (both made absolute first), or `target`
/// absolute when they share no prefix.
pub fn relative_path(target: &Path, base: &Path) -> PathBuf {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (t, b) = (abs(target), abs(base));
    let (tc, bc): (Vec<_>, Vec<_>) = (t.components().collect(), b.components().collect());
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t;
    }
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c);
    }
    out
}

/// `a/b/../c` → `a/c`, lexically (for messages; `..` after `..` or at the start is kept).
pub(super) fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match (c, out.last()) {
            (Component::CurDir, _) => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    if out.is_empty() { PathBuf::from(".") } else { out.iter().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative_path(Path::new("/a/b/c.toml"), Path::new("/a/d/e")), Path::new("../../b/c.toml"));
        assert_eq!(relative_path(Path::new("/a/b/c.toml"), Path::new("/a/b")), Path::new("c.toml"));
    }
}
