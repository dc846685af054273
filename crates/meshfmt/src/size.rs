//! Memory sizes as the tool and the Python module take them (`--max-memory 512M`).

/// `512M`, `1GiB`, `4096`: bytes with an optional binary suffix (K, M, G, T, optionally
/// followed by `B` or `iB`; all binary: 512M = 512 MiB).
///
/// ```
/// use meshfmt::size::parse_size;
/// assert_eq!(parse_size("512M"), Ok(512 << 20));
/// assert_eq!(parse_size("1GiB"), Ok(1 << 30));
/// assert_eq!(parse_size("4096"), Ok(4096));
/// assert!(parse_size("12Q").is_err() && parse_size("99999999999T").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 512M, 2G, 1048576)"))?;
    let shift = match suffix.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "'{text}': unknown size suffix '{suffix}' (K, M, G or T)"
            ));
        }
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}
