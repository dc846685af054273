//! `convert --report FILE`: every loss of a conversion, its warnings and the files it
//! wrote, as one JSON object (written by hand: a few fixed keys need no serializer).
//!
//! ```json
//! {"input": "actor.mesh", "output": "actor.glb", "written": true,
//!  "files": ["actor.glb"],
//!  "losses": [{"feature": "animation", "kind": "quantized", "bound": 0.0001,
//!              "path": "animations[0]", "reason": "..."}],
//!  "warnings": []}
//! ```
//! `kind` is `dropped`, `reduced` or `quantized`; `bound` (the worst absolute error, in
//! the feature's units) is present for `quantized` only, `null` if not finite.
//! `written` is false when `--strict` refused the conversion (`files` is then empty).

use std::fmt::Write as _;
use std::path::PathBuf;

use meshfmt_core::{Loss, LossKind};

use crate::json;

/// What one conversion did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The input file.
    pub input: String,
    /// The output file.
    pub output: String,
    /// True when the files were written.
    pub written: bool,
    /// Every file written (the output, side files, split animations), in order.
    pub files: Vec<PathBuf>,
    /// Every loss.
    pub losses: Vec<Loss>,
    /// Every warning.
    pub warnings: Vec<String>,
}

fn json_number(x: f32) -> String {
    if x.is_finite() {
        // Display never uses an exponent and round-trips the value.
        format!("{x}")
    } else {
        "null".into()
    }
}

impl Report {
    /// The report as JSON, one loss or file per line.
    ///
    /// ```
    /// use meshfmt::report::Report;
    /// use meshfmt_core::{Feature, Loss, LossKind};
    /// let r = Report {
    ///     input: "a \"b\".mesh".into(),
    ///     losses: vec![Loss { feature: Feature::Skin, kind: LossKind::Quantized { max_error: 0.5 }, path: "surfaces[0]".into(), reason: "8-bit".into() }],
    ///     ..Report::default()
    /// };
    /// let json = r.to_json();
    /// assert!(json.contains(r#""input": "a \"b\".mesh""#));
    /// assert!(json.contains(r#"{"feature": "skin", "kind": "quantized", "bound": 0.5, "path": "surfaces[0]", "reason": "8-bit"}"#));
    /// ```
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        s.push_str("{\n");
        let _ = writeln!(s, "  \"input\": {},", json::string(&self.input));
        let _ = writeln!(s, "  \"output\": {},", json::string(&self.output));
        let _ = writeln!(s, "  \"written\": {},", self.written);
        let files: Vec<String> = self
            .files
            .iter()
            .map(|f| format!("    {}", json::string(&f.to_string_lossy())))
            .collect();
        list(&mut s, "files", &files, true);
        let losses: Vec<String> = self
            .losses
            .iter()
            .map(|l| {
                let (kind, bound) = match l.kind {
                    LossKind::Dropped => ("dropped", String::new()),
                    LossKind::Reduced => ("reduced", String::new()),
                    LossKind::Quantized { max_error } => {
                        ("quantized", format!(", \"bound\": {}", json_number(max_error)))
                    }
                };
                format!(
                    "    {{\"feature\": {}, \"kind\": \"{kind}\"{bound}, \"path\": {}, \"reason\": {}}}",
                    json::string(l.feature.name()),
                    json::string(&l.path),
                    json::string(&l.reason)
                )
            })
            .collect();
        list(&mut s, "losses", &losses, true);
        let warnings: Vec<String> = self
            .warnings
            .iter()
            .map(|w| format!("    {}", json::string(w)))
            .collect();
        list(&mut s, "warnings", &warnings, false);
        s.push_str("}\n");
        s
    }
}

fn list(s: &mut String, key: &str, items: &[String], comma: bool) {
    let end = if comma { "," } else { "" };
    if items.is_empty() {
        let _ = writeln!(s, "  \"{key}\": []{end}");
    } else {
        let _ = writeln!(s, "  \"{key}\": [\n{}\n  ]{end}", items.join(",\n"));
    }
}
