//! A `.zip` of a conversion's files, for one download (PKWARE APPNOTE 6.3: local
//! headers, the central directory, its end record; deflate where it saves bytes, else
//! stored; names in UTF-8, flag bit 11). No ZIP64: a page holds less than 4 GiB.

use miniz_oxide::deflate::compress_to_vec;

use crate::error::WebError;

const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;
/// Version 2.0: deflate.
const VERSION: u16 = 20;
/// General purpose flag bit 11: the name is UTF-8.
const UTF8_NAMES: u16 = 1 << 11;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;
/// 1980-01-01 00:00 in MS-DOS form: the files have no time of their own.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;

/// The CRC-32 (IEEE 802.3, reflected, as zip and PNG use it) of `data`.
///
/// ```
/// assert_eq!(meshfmt_web::zip::crc32(b"123456789"), 0xcbf4_3926);
/// ```
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    !data
        .iter()
        .fold(!0u32, |c, &b| TABLE[usize::from((c as u8) ^ b)] ^ (c >> 8))
}

fn u32_of(n: usize, what: &str) -> Result<u32, WebError> {
    u32::try_from(n).map_err(|_| WebError::usage(format!("{what}: too large for a .zip")))
}

/// The files (name, bytes), in order, as one `.zip` archive.
///
/// ```
/// let z = meshfmt_web::zip::zip([("a.txt", &b"hello"[..])])?;
/// assert_eq!(&z[..4], b"PK\x03\x04");
/// # Ok::<(), meshfmt_web::WebError>(())
/// ```
pub fn zip<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Result<Vec<u8>, WebError> {
    let mut count = 0u16;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        count = count
            .checked_add(1)
            .ok_or_else(|| WebError::usage("more than 65,535 files for one .zip"))?;
        let offset = u32_of(out.len(), "the archive")?;
        let crc = crc32(data);
        let packed = compress_to_vec(data, 6);
        let (method, body) = if packed.len() < data.len() {
            (DEFLATED, packed.as_slice())
        } else {
            (STORED, data)
        };
        let name_len = u16::try_from(name.len())
            .map_err(|_| WebError::usage("a file name too long for a .zip"))?;
        let sizes = [u32_of(body.len(), name)?, u32_of(data.len(), name)?];
        // The fields local and central headers share, from the version needed on.
        let mut common = Vec::with_capacity(26);
        for v in [VERSION, UTF8_NAMES, method, DOS_TIME, DOS_DATE] {
            common.extend(v.to_le_bytes());
        }
        for v in [crc, sizes[0], sizes[1]] {
            common.extend(v.to_le_bytes());
        }
        common.extend(name_len.to_le_bytes());
        common.extend(0u16.to_le_bytes()); // extra field length
        out.extend(LOCAL_HEADER.to_le_bytes());
        out.extend(&common);
        out.extend(name.as_bytes());
        out.extend(body);
        central.extend(CENTRAL_HEADER.to_le_bytes());
        central.extend(VERSION.to_le_bytes()); // made by: MS-DOS, 2.0
        central.extend(&common);
        // Comment length, disk number, internal and external attributes.
        central.extend([0u8; 2 + 2 + 2 + 4]);
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let central_at = u32_of(out.len(), "the archive")?;
    let central_len = u32_of(central.len(), "the archive")?;
    out.extend(central);
    out.extend(END_OF_CENTRAL_DIRECTORY.to_le_bytes());
    out.extend([0u8; 4]); // this disk, the central directory's disk
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(central_len.to_le_bytes());
    out.extend(central_at.to_le_bytes());
    out.extend(0u16.to_le_bytes()); // comment length
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of our own would share our mistakes: Python's zipfile reads the
    /// archive, checks every CRC (`testzip`) and gives back every file's bytes.
    #[test]
    fn python_zipfile_reads_back_every_file() {
        let big: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        // xorshift32: bytes deflate cannot shrink, so this file is stored.
        let mut x = 2_463_534_242u32;
        let noise: Vec<u8> = (0..5000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 24) as u8
            })
            .collect();
        let files = [
            ("actor.glb".to_string(), big),
            ("anims/walk ü.anim".to_string(), noise),
            ("empty.bin".to_string(), Vec::new()),
        ];
        let Ok(z) = zip(files.iter().map(|(n, d)| (n.as_str(), d.as_slice()))) else {
            panic!("zip refused")
        };
        let dir = std::env::temp_dir().join(format!("meshfmt-web-zip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let path = dir.join("t.zip");
        std::fs::write(&path, &z).ok();
        let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist():\n    sys.stdout.write('%s %d %d %d\\n' % (i.filename, i.compress_type, i.file_size, sum(z.read(i)) ))\n";
        let Ok(out) = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
        else {
            eprintln!("python3 not found: zip read-back skipped");
            return;
        };
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Vec<String> = files
            .iter()
            .map(|(n, d)| {
                let method = if n.ends_with("glb") { 8 } else { 0 };
                let sum: u64 = d.iter().map(|&b| u64::from(b)).sum();
                format!("{n} {method} {} {sum}", d.len())
            })
            .collect();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .collect::<Vec<_>>(),
            want
        );
    }
}
