//! The one API shape of docs/ARCHITECTURE.md ("One API shape"), as a test: the public
//! functions of every format crate, read from source, each either in the shape or on a
//! short list of named extras with the reason it exists.
//!
//! A function is an entry point when its name says it reads, writes, converts or checks a
//! file (`read*`, `write*`, `to_core*`, `from_core*`, `load*`, `save*`, `parse*`,
//! `sniff*`, `problems*`, `check*`, `validate*`) or when it returns a conversion
//! (`Converted<…>`). Entry points must have one of the shape's signatures (parameter
//! types compared by their last path segment, without generic arguments):
//!
//! | name | parameters |
//! |---|---|
//! | `sniff` | `&[u8]` |
//! | `read` / `read_with` | `&[u8]` / `&[u8], &ReadOptions` |
//! | `write` / `write_with` / `write_to` | `&self` / `&self, &WriteOptions` / `&self, impl Write` |
//! | `to_core` / `to_core_with` | `&self` / `&self, &CoreOptions` |
//! | `from_core` / `from_core_with` | `&Model` / `&Model, &WriteOptions` |
//! | `problems` | `&self` |
//!
//! Functions written by `macro_rules!` are read from the macro's body, so a macro cannot
//! hide one. `unigine-common` is left out: it is the two UNIGINE crates' shared block
//! layer (readers and writers over parsing-primitives' `Reader`/`Writer`), which users
//! never name (its crate docs say so); its options are checked where they are used.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quote::ToTokens;

/// The crates a user adds to read one format: every one follows the shape.
const FORMAT_CRATES: &[&str] = &[
    "unigine-mesh",
    "unigine-anim",
    "niotso-mesh",
    "unity-meshser",
    "m3d",
];

/// Entry points outside the table above, each with why it is there: `crate`,
/// `Type::function` (or `function` for a free one), the reason.
const EXTRAS: &[(&str, &str, &str)] = &[
    (
        "unigine-mesh",
        "read_shared",
        "read from reference-counted bytes, borrowing the stored geometry instead of copying it",
    ),
    (
        "unigine-mesh",
        "read_shared_with",
        "read_shared with ReadOptions",
    ),
    (
        "unigine-mesh",
        "SpatialTree::problems",
        "a tree is valid only for its surface's triangle count, which it does not hold",
    ),
    (
        "niotso-mesh",
        "sniff_kind",
        "four Vitaboy file kinds share one crate: which one the bytes are",
    ),
    (
        "niotso-mesh",
        "parse_loose_file_name",
        "a loose file's name carries its asset id (name.<file id><type id>.ext)",
    ),
    (
        "m3d",
        "sniff_variant",
        "M3D has a binary (compressed or not) and an ASCII form: which one the bytes are",
    ),
    (
        "m3d",
        "File::write_ascii",
        "M3D's second encoding of the same file, beside write",
    ),
    (
        "m3d",
        "File::write_ascii_with",
        "write_ascii with WriteOptions",
    ),
    (
        "m3d",
        "load",
        "the reference loader's m3d_t in one pass, without the faithful File between",
    ),
    (
        "m3d",
        "File::load",
        "the reference loader's m3d_t from a File",
    ),
    (
        "m3d",
        "load_in_pieces",
        "doc(hidden): load with the payload cut at chosen points, for fuzzing the cuts",
    ),
    (
        "m3d",
        "read_payload",
        "an already inflated payload (HEAD..OMD3), as embedders hold it",
    ),
];

/// One public function: where it is and its parameter types.
#[derive(Debug, Clone)]
struct PubFn {
    krate: &'static str,
    /// `Type::name` for a method, `name` for a free function.
    path: String,
    name: String,
    /// `&self`, `self`, or the type's tokens, each with spaces removed.
    params: Vec<String>,
    /// The return type's tokens, spaces removed (empty for `()`).
    ret: String,
}

impl std::fmt::Display for PubFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}({})",
            self.krate,
            self.path,
            self.params.join(", ")
        )
    }
}

/// Tokens without spaces, so `& [u8]` and `&[u8]` compare equal.
fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

/// The last path segment of a type without its generic arguments, behind any `&`:
/// `&crate::options::CoreOptions<'_>` is `&CoreOptions`, `impl std::io::Write` is
/// `Write`.
fn short(ty: &str) -> String {
    let (amp, rest) = match ty.strip_prefix('&') {
        Some(r) => ("&", r.trim_start_matches("mut")),
        None => ("", ty),
    };
    let rest = rest.strip_prefix("impl").unwrap_or(rest);
    if rest.starts_with('[') || rest.starts_with('(') {
        return format!("{amp}{rest}");
    }
    let base = rest.split('<').next().unwrap_or(rest);
    let last = base.rsplit("::").next().unwrap_or(base);
    format!("{amp}{last}")
}

fn params(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Receiver(r) => {
                if r.reference.is_some() {
                    if r.mutability.is_some() {
                        "&mut self".into()
                    } else {
                        "&self".into()
                    }
                } else {
                    "self".into()
                }
            }
            syn::FnArg::Typed(t) => short(&tokens(&t.ty)),
        })
        .collect()
}

fn is_pub(v: &syn::Visibility) -> bool {
    matches!(v, syn::Visibility::Public(_))
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && tokens(&a.meta).contains("test")
            && !tokens(&a.meta).contains("not(test")
    })
}

/// Collects the public functions of one file's items (and of inline modules and macro
/// bodies in it); `mod x;` declarations are returned for the caller to follow.
struct Collector {
    krate: &'static str,
    found: Vec<PubFn>,
    submodules: Vec<String>,
}

impl Collector {
    fn items(&mut self, items: &[syn::Item], depth: usize) {
        for item in items {
            match item {
                syn::Item::Fn(f) if is_pub(&f.vis) && !is_test_only(&f.attrs) => {
                    self.push(None, &f.sig);
                }
                syn::Item::Impl(i) if i.trait_.is_none() && !is_test_only(&i.attrs) => {
                    let ty = short(&tokens(&i.self_ty));
                    let ty = ty.split('<').next().unwrap_or(&ty).to_string();
                    for it in &i.items {
                        if let syn::ImplItem::Fn(f) = it {
                            if is_pub(&f.vis) && !is_test_only(&f.attrs) {
                                self.push(Some(&ty), &f.sig);
                            }
                        }
                        if let syn::ImplItem::Macro(m) = it {
                            self.macro_body(&m.mac, Some(&ty));
                        }
                    }
                }
                syn::Item::Mod(m) if !is_test_only(&m.attrs) => match &m.content {
                    Some((_, inner)) => self.items(inner, depth + 1),
                    None if depth == 0 => self.submodules.push(m.ident.to_string()),
                    None => {}
                },
                syn::Item::Macro(m) => self.macro_body(&m.mac, None),
                _ => {}
            }
        }
    }

    /// A `macro_rules!` definition's arms, read as impl items (a macro that writes
    /// methods) and as items (one that writes free functions or impl blocks).
    fn macro_body(&mut self, mac: &syn::Macro, ty: Option<&str>) {
        if !mac.path.is_ident("macro_rules") {
            return;
        }
        let text = mac.tokens.to_string();
        // Each `pub fn name (...)` in the body, read from the text: macro arms are not
        // items until expanded, and `$x` fragments do not parse as Rust.
        let mut rest = text.as_str();
        while let Some(at) = rest.find("pub fn ") {
            let after = &rest[at + "pub fn ".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            let args = after[name.len()..].trim_start();
            let params = args
                .strip_prefix('(')
                .and_then(|a| {
                    let mut level = 0usize;
                    for (i, c) in a.char_indices() {
                        match c {
                            '(' | '<' | '[' => level += 1,
                            ')' if level == 0 => return Some(&a[..i]),
                            ')' | '>' | ']' => level = level.saturating_sub(1),
                            _ => {}
                        }
                    }
                    None
                })
                .unwrap_or("");
            let params = split_params(params);
            self.found.push(PubFn {
                krate: self.krate,
                path: format!("{}::{name} (macro)", ty.unwrap_or("$type")),
                name,
                params,
                ret: String::new(),
            });
            rest = after;
        }
    }

    fn push(&mut self, ty: Option<&str>, sig: &syn::Signature) {
        let name = sig.ident.to_string();
        self.found.push(PubFn {
            krate: self.krate,
            path: match ty {
                Some(t) => format!("{t}::{name}"),
                None => name.clone(),
            },
            name,
            params: params(sig),
            ret: match &sig.output {
                syn::ReturnType::Default => String::new(),
                syn::ReturnType::Type(_, t) => tokens(t),
            },
        });
    }
}

/// `a: &[u8], options: &ReadOptions` as `["&[u8]", "&ReadOptions"]`.
fn split_params(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut cur = String::new();
    for c in text.chars() {
        match c {
            '<' | '(' | '[' => level += 1,
            '>' | ')' | ']' => level = level.saturating_sub(1),
            ',' if level == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.replace(' ', ""))
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once(':') {
            Some((_, ty)) if !p.starts_with('&') => short(ty),
            _ => p,
        })
        .collect()
}

/// Every public function of a crate, from `src/lib.rs` down its `mod` declarations.
fn public_functions(krate: &'static str, root: &Path) -> Vec<PubFn> {
    let mut out = Vec::new();
    let mut queue: Vec<PathBuf> = vec![root.join("src/lib.rs")];
    let mut seen = BTreeSet::new();
    while let Some(file) = queue.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let mut c = Collector {
            krate,
            found: Vec::new(),
            submodules: Vec::new(),
        };
        c.items(&parsed.items, 0);
        out.extend(c.found);
        // `mod x;` in `a.rs` or `a/mod.rs` or `lib.rs` lives in `a/x.rs` or `a/x/mod.rs`.
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let dir = match stem {
            "lib" | "mod" => file.parent().map(Path::to_path_buf),
            _ => file.parent().map(|p| p.join(stem)),
        }
        .unwrap_or_default();
        for m in c.submodules {
            let flat = dir.join(format!("{m}.rs"));
            let nested = dir.join(&m).join("mod.rs");
            if flat.exists() {
                queue.push(flat);
            } else if nested.exists() {
                queue.push(nested);
            }
        }
    }
    out
}

/// The shape's parameter lists for `name`, or `None` when the name is not one of it.
fn shape(name: &str) -> Option<&'static [&'static [&'static str]]> {
    Some(match name {
        "sniff" => &[&["&[u8]"]],
        "read" => &[&["&[u8]"]],
        "read_with" => &[&["&[u8]", "&ReadOptions"]],
        "write" => &[&["&self"]],
        "write_with" => &[&["&self", "&WriteOptions"]],
        "write_to" => &[&["&self", "Write"]],
        "to_core" => &[&["&self"]],
        "to_core_with" => &[&["&self", "&CoreOptions"]],
        "from_core" => &[&["&Model"]],
        "from_core_with" => &[&["&Model", "&WriteOptions"]],
        "problems" => &[&["&self"]],
        _ => return None,
    })
}

const ENTRY_PREFIXES: &[&str] = &[
    "read",
    "write",
    "to_core",
    "from_core",
    "load",
    "save",
    "parse",
    "sniff",
    "problems",
    "check",
    "validate",
];

/// Why `f` is outside the shape, or `None` when it is in it (or is no entry point).
fn outside_shape(f: &PubFn) -> Option<String> {
    if let Some(shapes) = shape(&f.name) {
        return (!shapes.iter().any(|s| s.iter().eq(f.params.iter()))).then(|| {
            format!(
                "{f}: the shape's {} takes ({})",
                f.name,
                shapes[0].join(", ")
            )
        });
    }
    if ENTRY_PREFIXES.iter().any(|p| f.name.starts_with(p)) {
        return Some(format!("{f}: an entry point not named by the shape"));
    }
    if f.ret.contains("Converted<") {
        return Some(format!("{f}: a conversion not named to_core or from_core"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The public functions of one source text, as [`public_functions`] reads a file.
    fn of(text: &str) -> Vec<PubFn> {
        let mut c = Collector {
            krate: "example",
            found: Vec::new(),
            submodules: Vec::new(),
        };
        c.items(&syn::parse_file(text).unwrap().items, 0);
        c.found
    }

    #[test]
    fn positional_arguments_and_other_names_are_outside_the_shape() {
        let fns = of(r#"
            pub fn read(data: &[u8]) -> Result<File> { body() }
            pub fn read_with(data: &[u8], options: &crate::options::ReadOptions) -> Result<File> { body() }
            pub fn read_limited(data: &[u8], limits: Limits) -> Result<File> { body() }
            fn read_private(data: &[u8]) {}
            pub(crate) fn read_crate(data: &[u8]) {}
            impl File {
                pub fn to_core_with(&self, options: &CoreOptions<'_>) -> Result<Converted<Model>> { body() }
                pub fn to_core(&self, fps: f32) -> Result<Converted<Model>> { body() }
                pub fn into_model(self) -> Result<Converted<Model>> { body() }
                pub fn write_to(&self, out: impl std::io::Write) -> Result<()> { body() }
                pub fn name(&self) -> &str { body() }
            }
            impl Format for File { pub fn read(x: u32) {} }
            #[cfg(test)]
            mod tests { pub fn read(x: u32) {} }
            macro_rules! delegates {
                ($t:ty) => { impl $t { pub fn from_core(model: &Model, fps: f32) -> Self { body() } } };
            }
        "#);
        let names: Vec<String> = fns.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            names,
            [
                "read",
                "read_with",
                "read_limited",
                "File::to_core_with",
                "File::to_core",
                "File::into_model",
                "File::write_to",
                "File::name",
                "$type::from_core (macro)",
            ]
        );
        let outside: Vec<&str> = fns
            .iter()
            .filter(|f| outside_shape(f).is_some())
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(
            outside,
            [
                "read_limited",
                "File::to_core",
                "File::into_model",
                "$type::from_core (macro)"
            ]
        );
    }

    fn all() -> Vec<PubFn> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        FORMAT_CRATES
            .iter()
            .flat_map(|k| public_functions(k, &root.join(k)))
            .collect()
    }

    #[test]
    fn every_format_crate_follows_the_one_api_shape() {
        let fns = all();
        let mut bad = Vec::new();
        let mut used = BTreeSet::new();
        for f in &fns {
            let Some(why) = outside_shape(f) else {
                continue;
            };
            match EXTRAS
                .iter()
                .position(|(k, p, _)| *k == f.krate && *p == f.path)
            {
                Some(i) => {
                    used.insert(i);
                }
                None => bad.push(why),
            }
        }
        let stale: Vec<_> = (0..EXTRAS.len())
            .filter(|i| !used.contains(i))
            .map(|i| EXTRAS[i])
            .collect();
        assert!(stale.is_empty(), "extras that no longer exist: {stale:?}");
        // Each crate has the free entry points a user starts from.
        for k in FORMAT_CRATES {
            for name in ["sniff", "read", "read_with"] {
                if !fns.iter().any(|f| f.krate == *k && f.path == name) {
                    bad.push(format!("{k}: no free function {name}"));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} public functions outside the shape:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}
