//! The one edit the bench makes to a published crate's `Cargo.toml`: a
//! dependency renamed to a facade (`loom = { package = "rankcheck-loom",
//! path = ".../rt-loom" }`), its key, features and optionality kept, and,
//! for both copies alike, an empty `[workspace]` so that the crate stands
//! alone inside the bench's work folder. With the rename comes the patch
//! a user adds for dependencies that use the library too (scc's `sdd`
//! behind its `loom` feature): `[patch.crates-io] loom = { path =
//! ".../rt-loom/as-loom" }`, the facade under the library's own package
//! name. Edited with `toml_edit`, so the rest of the file stays byte for
//! byte as published.

use std::path::Path;

use anyhow::{bail, Context, Result};
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// The dependency-table names a rename looks in, at the top and under
/// every `[target.'cfg(..)']`.
const DEPENDENCY_TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// Where a dependency's package came from; dropped by the rename, which
/// gives the facade's path instead.
const SOURCE_KEYS: [&str; 8] = [
    "version",
    "git",
    "branch",
    "tag",
    "rev",
    "registry",
    "registry-index",
    "path",
];

/// A dependency renamed to a facade.
#[derive(Debug, Clone, Copy)]
pub struct Rename<'a> {
    /// The dependency's key in the crate's tables (`loom`, `loom-crate`).
    pub key: &'a str,
    /// The facade's package (`rankcheck-loom`).
    pub package: &'a str,
    /// The facade's folder.
    pub path: &'a Path,
    /// The facade under the library's own name, patched in for the
    /// crate's dependencies; `None` when the facade has no such package.
    pub patch: Option<Patch<'a>>,
}

/// A `[patch.crates-io]` entry: the library's package replaced in the
/// whole dependency graph.
#[derive(Debug, Clone, Copy)]
pub struct Patch<'a> {
    /// The library's package (`loom`).
    pub package: &'a str,
    /// The folder of the package that stands in for it
    /// (`rt-loom/as-loom`).
    pub path: &'a Path,
}

/// A manifest as the bench builds it.
#[derive(Debug)]
pub struct Edited {
    /// The new `Cargo.toml`.
    pub text: String,
    /// The tables where the dependency was renamed
    /// (`target."cfg(loom)".dev-dependencies`).
    pub renamed: Vec<String>,
    /// The package patched in `[patch.crates-io]`, if any.
    pub patched: Option<String>,
    /// Whether an empty `[workspace]` was added.
    pub workspace_added: bool,
}

impl Edited {
    /// What changed, in words, for the results.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.workspace_added {
            parts.push("[workspace] added".to_string());
        }
        if !self.renamed.is_empty() {
            parts.push(format!("renamed in {}", self.renamed.join(", ")));
        }
        if let Some(package) = &self.patched {
            parts.push(format!("{package} patched for dependencies"));
        }
        if parts.is_empty() {
            "unchanged".to_string()
        } else {
            parts.join("; ")
        }
    }
}

/// The published `text` made to stand alone, with `rename` applied when
/// given. A rename that finds its dependency nowhere is an error.
pub fn edit(text: &str, rename: Option<Rename<'_>>) -> Result<Edited> {
    let mut doc: DocumentMut = text.parse().context("Cargo.toml does not parse")?;
    let workspace_added = !doc.contains_key("workspace");
    if workspace_added {
        doc["workspace"] = toml_edit::table();
    }
    let mut renamed = Vec::new();
    let mut patched = None;
    if let Some(rename) = rename {
        let path = rename
            .path
            .to_str()
            .context("the facade's path is not UTF-8")?;
        for table in DEPENDENCY_TABLES {
            if let Some(deps) = doc.get_mut(table).and_then(Item::as_table_like_mut) {
                if rename_in(deps, rename, path) {
                    renamed.push(table.to_string());
                }
            }
        }
        if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
            for (cfg, target) in targets.iter_mut() {
                let Some(target) = target.as_table_like_mut() else {
                    continue;
                };
                for table in DEPENDENCY_TABLES {
                    if let Some(deps) = target.get_mut(table).and_then(Item::as_table_like_mut) {
                        if rename_in(deps, rename, path) {
                            renamed.push(format!("target.{:?}.{table}", cfg.get()));
                        }
                    }
                }
            }
        }
        if renamed.is_empty() {
            bail!("no dependency `{}` to rename", rename.key);
        }
        if let Some(patch) = rename.patch {
            add_patch(&mut doc, patch)?;
            patched = Some(patch.package.to_string());
        }
    }
    Ok(Edited {
        text: doc.to_string(),
        renamed,
        patched,
        workspace_added,
    })
}

/// `[patch.crates-io] <package> = { path = ... }`, replacing any patch
/// of the package the crate had.
fn add_patch(doc: &mut DocumentMut, patch: Patch<'_>) -> Result<()> {
    let path = patch
        .path
        .to_str()
        .context("the patch package's path is not UTF-8")?;
    let patches = doc
        .entry("patch")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .context("`patch` is not a table")?
        .entry("crates-io")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .context("`patch.crates-io` is not a table")?;
    let mut entry = toml_edit::InlineTable::new();
    entry.insert("path", path.into());
    patches.insert(patch.package, Item::Value(Value::InlineTable(entry)));
    Ok(())
}

/// Rename `rename.key` in one dependency table; whether it was there.
fn rename_in(deps: &mut dyn TableLike, rename: Rename<'_>, path: &str) -> bool {
    let Some(item) = deps.get_mut(rename.key) else {
        return false;
    };
    if item.is_str() {
        // `loom = "0.7"`: the version is all it says.
        *item = Item::Value(Value::InlineTable(toml_edit::InlineTable::new()));
    }
    let Some(dependency) = item.as_table_like_mut() else {
        return false;
    };
    for key in SOURCE_KEYS {
        dependency.remove(key);
    }
    dependency.remove("package");
    dependency.insert("package", toml_edit::value(rename.package));
    dependency.insert("path", toml_edit::value(path));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facade() -> Rename<'static> {
        Rename {
            key: "loom",
            package: "rankcheck-loom",
            path: Path::new("/repo/rt-loom"),
            patch: None,
        }
    }

    #[test]
    fn a_target_dev_dependency_is_renamed_keeping_its_features() {
        let published = r#"[package]
name = "thingbuf"
version = "0.1.6"

[dependencies.parking_lot]
version = "0.12"

[target."cfg(loom)".dev-dependencies.loom]
version = "0.5.6"
features = [
    "checkpoint",
    "futures",
]
"#;
        let edited = edit(published, Some(facade())).unwrap();
        assert_eq!(edited.renamed, [r#"target."cfg(loom)".dev-dependencies"#]);
        assert!(edited.workspace_added);
        let doc: DocumentMut = edited.text.parse().unwrap();
        let loom = &doc["target"]["cfg(loom)"]["dev-dependencies"]["loom"];
        assert_eq!(loom["package"].as_str(), Some("rankcheck-loom"));
        assert_eq!(loom["path"].as_str(), Some("/repo/rt-loom"));
        assert!(loom.get("version").is_none());
        assert_eq!(loom["features"].as_array().unwrap().len(), 2);
        // Everything else as published.
        assert!(edited
            .text
            .starts_with(&published[..published.find("[target").unwrap()]));
        assert_eq!(
            doc["dependencies"]["parking_lot"]["version"].as_str(),
            Some("0.12")
        );
    }

    #[test]
    fn an_optional_renamed_dependency_stays_optional_under_its_key() {
        let published = r#"[package]
name = "crossbeam-epoch"

[target."cfg(crossbeam_loom)".dependencies.loom-crate]
version = "0.7.1"
optional = true
package = "loom"
"#;
        let rename = Rename {
            key: "loom-crate",
            ..facade()
        };
        let edited = edit(published, Some(rename)).unwrap();
        let doc: DocumentMut = edited.text.parse().unwrap();
        let dep = &doc["target"]["cfg(crossbeam_loom)"]["dependencies"]["loom-crate"];
        assert_eq!(dep["package"].as_str(), Some("rankcheck-loom"));
        assert_eq!(dep["optional"].as_bool(), Some(true));
    }

    #[test]
    fn a_version_string_and_an_inline_table_are_renamed_everywhere() {
        let published = r#"[package]
name = "spmc"

[workspace]

[dependencies]
loom = { version = "0.7", optional = true }

[dev-dependencies]
loom = "0.2.2"
"#;
        let edited = edit(published, Some(facade())).unwrap();
        assert!(!edited.workspace_added);
        assert_eq!(edited.renamed, ["dependencies", "dev-dependencies"]);
        let doc: DocumentMut = edited.text.parse().unwrap();
        for table in ["dependencies", "dev-dependencies"] {
            assert_eq!(
                doc[table]["loom"]["package"].as_str(),
                Some("rankcheck-loom")
            );
        }
        assert_eq!(
            doc["dependencies"]["loom"]["optional"].as_bool(),
            Some(true)
        );
        assert_eq!(
            edited.describe(),
            "renamed in dependencies, dev-dependencies"
        );
    }

    #[test]
    fn the_library_is_patched_for_dependencies_beside_the_rename() {
        let published = r#"[package]
name = "scc"

[features]
loom = ["dep:loom", "sdd/loom"]

[dependencies.loom]
version = "0.7"
optional = true

[dependencies.sdd]
version = "4.8"
"#;
        let rename = Rename {
            patch: Some(Patch {
                package: "loom",
                path: Path::new("/repo/rt-loom/as-loom"),
            }),
            ..facade()
        };
        let edited = edit(published, Some(rename)).unwrap();
        let doc: DocumentMut = edited.text.parse().unwrap();
        assert_eq!(
            doc["patch"]["crates-io"]["loom"]["path"].as_str(),
            Some("/repo/rt-loom/as-loom")
        );
        assert_eq!(
            doc["dependencies"]["loom"]["package"].as_str(),
            Some("rankcheck-loom")
        );
        assert_eq!(
            edited.describe(),
            "[workspace] added; renamed in dependencies; loom patched for dependencies"
        );
    }

    #[test]
    fn the_real_loom_copy_only_gains_a_workspace_and_a_missing_key_is_an_error() {
        let published = "[package]\nname = \"a\"\n";
        let edited = edit(published, None).unwrap();
        assert_eq!(edited.text, "[package]\nname = \"a\"\n\n[workspace]\n");
        assert_eq!(edited.describe(), "[workspace] added");
        assert!(edit(published, Some(facade())).is_err());
    }
}
