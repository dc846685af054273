//! Wavefront OBJ import (+ MTL through a loader), written here rather than taken from
//! `tobj`: tobj 4.0.5 panics on a malformed MTL line (`Kd 1 2` reaches an `unwrap` in
//! its `parse_float3`), and every reader here takes untrusted bytes.
//!
//! Supported: `v` (with optional `x y z r g b` colors), `vt`, `vn`, `f` with any of the
//! `v`, `v/vt`, `v//vn`, `v/vt/vn` forms and negative (relative) indices, polygons
//! (fan-triangulated), `o`/`g`/`usemtl` starting new surfaces, `mtllib` with `newmtl`,
//! `Kd`, `d`/`Tr`, `Ke`, `Pr`, `Pm`, `map_Kd`, `map_Bump`/`bump`/`norm`, `map_Ke`.
//! Each surface gets one vertex per distinct `v/vt/vn` triple. Everything else (lines,
//! points, curves, smoothing groups) is skipped and reported.

use std::collections::HashMap;
use std::rc::Rc;

use meshfmt_core::corners::{Corner, CornerMap, push_fan};
use meshfmt_core::glam::{Vec2, Vec3, Vec4};
use meshfmt_core::{
    Budget, Converted, CoordinateSystem, Credit, Feature, LossKind, Material, Model, Surface,
    Texture, TextureBinding, TextureRole, TextureSource,
};
use parsing_primitives::lines::{split_ascii, split_lines, tokens_charged};

use meshfmt_core::side_files::{SideFile, SideFiles, Unavailable};

use crate::error::CliError;

fn bad(line: usize, message: impl std::fmt::Display) -> CliError {
    CliError::format("obj", format!("line {line}: {message}"))
}

fn floats<const N: usize>(line: usize, parts: &[&str], min: usize) -> Result<[f32; N], CliError> {
    if parts.len() < min {
        return Err(bad(
            line,
            format!("{} numbers where {min} are needed", parts.len()),
        ));
    }
    let mut out = [0.0; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p
            .parse()
            .map_err(|_| bad(line, format!("'{p}' is not a number")))?;
    }
    Ok(out)
}

/// One corner's `v/vt/vn` triple, resolved to 0-based indices.
fn corner(line: usize, token: &str, counts: [usize; 3]) -> Result<[Option<usize>; 3], CliError> {
    let mut out = [None; 3];
    for (k, part) in split_ascii(token, b'/').enumerate() {
        if k > 2 {
            return Err(bad(line, format!("'{token}' has more than three indices")));
        }
        if part.is_empty() {
            if k == 0 {
                return Err(bad(line, format!("'{token}' has no vertex index")));
            }
            continue;
        }
        let i: i64 = part
            .parse()
            .map_err(|_| bad(line, format!("'{part}' is not an index")))?;
        // 1-based, or negative counting back from the last element so far; checked,
        // since `-i64::MIN` does not exist.
        let n = counts[k];
        let resolved = match usize::try_from(i) {
            Ok(i) if i > 0 && i <= n => Some(i - 1),
            Ok(_) => None,
            Err(_) => usize::try_from(i.unsigned_abs())
                .ok()
                .and_then(|back| n.checked_sub(back)),
        };
        match resolved {
            Some(r) => out[k] = Some(r),
            None => return Err(bad(line, format!("index {i} out of range (1..={n})"))),
        }
    }
    Ok(out)
}

struct SurfaceBuilder {
    surface: Surface,
    /// The `o`/`g` name in force when the surface started, shared until the surface
    /// turns out to have faces: a long name followed by many `usemtl` lines is not
    /// copied once per line.
    group: Rc<str>,
    map: CornerMap<[Option<usize>; 3]>,
    uses_uv: bool,
    uses_normal: bool,
}

impl SurfaceBuilder {
    fn new(group: Rc<str>, material: Option<usize>) -> Self {
        SurfaceBuilder {
            surface: Surface {
                material,
                ..Default::default()
            },
            group,
            map: CornerMap::new(),
            uses_uv: false,
            uses_normal: false,
        }
    }

    /// The finished surface, its name charged to `budget`; all-or-nothing attributes:
    /// a surface where no corner named a UV (or normal) has none.
    fn finish(mut self, budget: &Budget) -> Result<Surface, CliError> {
        budget.charge(
            "OBJ surfaces",
            (self.group.len() + std::mem::size_of::<Surface>()) as u64,
        )?;
        self.surface.name = self.group.to_string();
        if !self.uses_uv {
            self.surface.uv0.clear();
        }
        if !self.uses_normal {
            self.surface.normals.clear();
        }
        Ok(self.surface)
    }
}

/// Bytes one new surface vertex costs: position, UV, normal, colour and its map entry.
const VERTEX_BYTES: u64 = 12 + 8 + 12 + 16 + 48;

/// Reads OBJ text; `mtllib` files come from `side_files` (relative names), each read
/// once however often it is named; one that is not available (missing, refused by the
/// loader's policy, or `side_files` is `None`) is a loss. Every vertex, face, surface
/// and material library is charged to `budget` before it is stored.
pub fn import(
    data: &[u8],
    side_files: Option<&dyn SideFiles>,
    budget: &Budget,
) -> Result<Converted<Model>, CliError> {
    let text = std::str::from_utf8(data).map_err(|e| {
        CliError::format("obj", format!("not UTF-8 text (byte {})", e.valid_up_to()))
    })?;
    let mut out = Converted::exact(Model {
        coordinate_system: CoordinateSystem::GLTF,
        ..Default::default()
    });
    let (mut v, mut vt, mut vn) = (Vec::<Vec3>::new(), Vec::<Vec2>::new(), Vec::<Vec3>::new());
    let mut colors = Vec::<Vec4>::new();
    let mut materials: HashMap<String, usize> = HashMap::new();
    let mut group: Rc<str> = Rc::from("");
    let mut current = SurfaceBuilder::new(group.clone(), None);
    let mut done: Vec<Surface> = Vec::new();
    let mut skipped: HashMap<String, usize> = HashMap::new();
    let mut libraries: Vec<String> = Vec::new();
    let mut missing: HashMap<String, usize> = HashMap::new();
    // Charged a block at a time: a few bytes per line would move the shared total
    // millions of times.
    let mut vertex_bytes = Credit::new(budget, "OBJ vertices");
    let mut face_bytes = Credit::new(budget, "OBJ faces");
    // One token list for every line, its growth charged (a hostile line of millions of
    // tokens is refused before its list is made).
    let mut parts: Vec<&str> = Vec::new();
    let mut token_bytes = Credit::new(budget, "OBJ line tokens");
    // Lines split by `split_lines` (as `str::split('\n')`, not `str::lines`): a '\r'
    // left at a line's end, and the empty line after a final newline, make no tokens.
    for (n, (_, raw)) in split_lines(text).enumerate() {
        let line = n + 1;
        let l = split_ascii(raw, b'#').next().unwrap_or_default();
        tokens_charged(l, &mut parts, &mut token_bytes, "OBJ line tokens")?;
        let Some((&key, rest)) = parts.split_first() else {
            continue;
        };
        match key {
            "v" => {
                let p: [f32; 6] = floats(line, rest, 3)?;
                vertex_bytes.charge_items::<[Vec4; 2]>(1)?;
                v.push(Vec3::new(p[0], p[1], p[2]));
                if rest.len() >= 6 {
                    colors.push(Vec4::new(p[3], p[4], p[5], 1.0));
                }
            }
            "vt" => {
                // OBJ's origin is bottom-left; meshfmt-core follows glTF (top-left).
                let t: [f32; 2] = floats(line, rest, 1)?;
                vertex_bytes.charge_items::<Vec2>(1)?;
                vt.push(Vec2::new(t[0], 1.0 - t[1]));
            }
            "vn" => {
                let d: [f32; 3] = floats(line, rest, 3)?;
                vertex_bytes.charge_items::<Vec3>(1)?;
                vn.push(Vec3::from_array(d));
            }
            "f" => {
                if rest.len() < 3 {
                    return Err(bad(line, "a face needs at least three corners"));
                }
                face_bytes.charge_items::<[u32; 3]>(rest.len() - 2)?;
                let mut ids = Vec::with_capacity(rest.len());
                for token in rest {
                    let c = corner(line, token, [v.len(), vt.len(), vn.len()])?;
                    let s = &mut current;
                    let corner = s
                        .map
                        .vertex(c, s.surface.positions.len())
                        .ok_or_else(|| bad(line, "a surface of over 2^32 vertices"))?;
                    if let Corner::New(_) = corner {
                        vertex_bytes.charge(VERTEX_BYTES)?;
                        let [pv, pt, pn] = c;
                        let pv = pv.unwrap_or(0);
                        s.surface.positions.push(v[pv]);
                        s.surface.uv0.push(pt.map_or(Vec2::ZERO, |i| vt[i]));
                        s.surface.normals.push(pn.map_or(Vec3::ZERO, |i| vn[i]));
                        if colors.len() == v.len() {
                            s.surface.colors.push(colors[pv]);
                        }
                        s.uses_uv |= pt.is_some();
                        s.uses_normal |= pn.is_some();
                    }
                    ids.push(corner.index());
                }
                push_fan(&mut current.surface.indices, &ids);
            }
            "o" | "g" | "usemtl" => {
                let name = rest.join(" ");
                let material = if key == "usemtl" {
                    match materials.get(&name) {
                        Some(&m) => Some(m),
                        None => {
                            // One loss per missing name (with its first line), not per use.
                            missing.entry(name).or_insert(line);
                            None
                        }
                    }
                } else {
                    group = Rc::from(name.as_str());
                    current.surface.material
                };
                let next = SurfaceBuilder::new(group.clone(), material);
                let prev = std::mem::replace(&mut current, next);
                if !prev.surface.indices.is_empty() {
                    done.push(prev.finish(budget)?);
                }
            }
            "mtllib" => {
                for file in rest {
                    if libraries.iter().any(|l| l == file) {
                        continue;
                    }
                    libraries.push((*file).to_string());
                    let found = match side_files {
                        Some(side) => side.read(file)?,
                        None => SideFile::Unavailable(Unavailable::missing(file)),
                    };
                    match found {
                        SideFile::Found(bytes) => {
                            budget.charge("OBJ material library", bytes.len() as u64)?;
                            read_mtl(&bytes, &mut out, &mut materials, &mut token_bytes)?
                        }
                        SideFile::Unavailable(u) => out.lose(
                            Feature::Materials,
                            LossKind::Dropped,
                            format!("line {line}"),
                            format!("mtllib: {u}"),
                        ),
                    }
                }
            }
            _ => *skipped.entry(key.to_string()).or_insert(0) += 1,
        }
    }
    if !current.surface.indices.is_empty() {
        done.push(current.finish(budget)?);
    }
    let mut missing: Vec<(usize, String)> = missing.into_iter().map(|(n, l)| (l, n)).collect();
    missing.sort_unstable();
    for (line, name) in missing {
        out.lose(
            Feature::Materials,
            LossKind::Dropped,
            format!("line {line}"),
            format!("material '{name}' is not in any mtllib"),
        );
    }
    for (key, count) in skipped {
        if key != "s" {
            out.lose(
                Feature::Geometry,
                LossKind::Reduced,
                String::new(),
                format!("{count} '{key}' statements are not imported"),
            );
        }
    }
    out.value.surfaces = done;
    Ok(out)
}

/// A material library's materials and textures into `out`, each charged to `credit`
/// (as are its lines' token lists) before it is made.
fn read_mtl(
    bytes: &[u8],
    out: &mut Converted<Model>,
    materials: &mut HashMap<String, usize>,
    credit: &mut Credit<'_>,
) -> Result<(), CliError> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        out.lose(
            Feature::Materials,
            LossKind::Dropped,
            String::new(),
            "mtllib is not UTF-8 text",
        );
        return Ok(());
    };
    let model = &mut out.value;
    let texture = |model: &mut Model, path: &str| {
        let t = model.textures.len();
        model.textures.push(Texture {
            name: path.to_string(),
            source: TextureSource::Path(path.to_string()),
        });
        t
    };
    let mut bad_lines = 0;
    // One token list for every line.
    let mut parts: Vec<&str> = Vec::new();
    for raw in text.lines() {
        let l = split_ascii(raw, b'#').next().unwrap_or_default();
        tokens_charged(l, &mut parts, credit, "OBJ material library tokens")?;
        let Some((&key, rest)) = parts.split_first() else {
            continue;
        };
        if key == "newmtl" {
            let name = rest.join(" ");
            // The material, its name, and the name's copy in the map.
            credit.charge_for(
                "OBJ materials",
                (std::mem::size_of::<Material>() + 2 * name.len() + 64) as u64,
            )?;
            materials.insert(name.clone(), model.materials.len());
            // Plain OBJ materials are dielectric; `Pm` says otherwise.
            model.materials.push(Material {
                name,
                metallic: 0.0,
                ..Default::default()
            });
            continue;
        }
        let Some(m) = model.materials.last_mut() else {
            continue;
        };
        let num = |i: usize| rest.get(i).and_then(|s| s.parse::<f32>().ok());
        let ok = match key {
            "Kd" => match (num(0), num(1), num(2)) {
                (Some(r), Some(g), Some(b)) => {
                    m.base_color = Vec4::new(r, g, b, m.base_color.w);
                    true
                }
                _ => false,
            },
            "Ke" => match (num(0), num(1), num(2)) {
                (Some(r), Some(g), Some(b)) => {
                    m.emissive = Vec3::new(r, g, b);
                    true
                }
                _ => false,
            },
            "d" => num(0).map(|d| m.base_color.w = d).is_some(),
            "Tr" => num(0).map(|t| m.base_color.w = 1.0 - t).is_some(),
            "Pr" => num(0).map(|r| m.roughness = r).is_some(),
            "Pm" => num(0).map(|x| m.metallic = x).is_some(),
            "map_Kd" | "map_Bump" | "bump" | "norm" | "map_Ke" => {
                // The file name is the last word (options like `-bm 1` come first).
                match rest.last() {
                    Some(path) => {
                        // The texture (its name and path) and its binding.
                        credit.charge_for(
                            "OBJ textures",
                            (std::mem::size_of::<Texture>()
                                + std::mem::size_of::<TextureBinding>()
                                + 2 * path.len()) as u64,
                        )?;
                        let role = match key {
                            "map_Kd" => TextureRole::BaseColor,
                            "map_Ke" => TextureRole::Emissive,
                            _ => TextureRole::Normal,
                        };
                        let t = texture(model, path);
                        if let Some(m) = model.materials.last_mut() {
                            m.textures.push(TextureBinding {
                                role,
                                texture: t,
                                uv_set: 0,
                            });
                        }
                        true
                    }
                    None => false,
                }
            }
            _ => true,
        };
        bad_lines += usize::from(!ok);
    }
    if bad_lines > 0 {
        out.lose(
            Feature::Materials,
            LossKind::Reduced,
            String::new(),
            format!("{bad_lines} malformed mtllib lines skipped"),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{SideFiles, import};

    /// CRLF line ends, comments, a final line without a newline and one with a final
    /// newline all read as the plain LF text does.
    #[test]
    fn line_ends_and_comments_do_not_change_the_model() {
        let lf = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3";
        let read = |text: &str| {
            import(text.as_bytes(), None, &meshfmt_core::Budget::default())
                .map(|c| c.value)
                .map_err(|e| e.to_string())
        };
        let want = read(lf);
        assert!(
            matches!(&want, Ok(m) if m.surfaces.iter().map(|s| s.indices.len()).sum::<usize>() == 6)
        );
        for text in [
            "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nv 1 1 0\r\nf 1 2 3\r\nf 2 4 3\r\n",
            "# a cube's corner\nv 0 0 0 # origin\nv 1 0 0\nv 0 1 0\nv 1 1 0#x\nf 1 2 3\nf 2 4 3\n\n",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\r",
        ] {
            assert_eq!(read(text), want, "{text:?}");
        }
        // Errors name the same line with either line end.
        for text in [
            "v 0 0 0\nv 1 0 0\nf 1 2 9\n",
            "v 0 0 0\r\nv 1 0 0\r\nf 1 2 9\r\n",
        ] {
            let e = read(text);
            assert!(matches!(&e, Err(e) if e.contains("line 3")), "{e:?}");
        }
    }

    /// Index arithmetic is checked: `i64::MIN` (whose negation overflows) and the
    /// largest values are refused with the line, for `v`, `vt` and `vn` alike; -1 still
    /// counts back from the last element.
    #[test]
    fn extreme_face_indices_are_refused_with_their_line() {
        let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
        for corner in [
            "-9223372036854775808",
            "1/-9223372036854775808",
            "1/1/-9223372036854775808",
            "9223372036854775807",
            "-4",
            "0",
        ] {
            let text = format!("{head}f 1 2 {corner}\n");
            let e = import(text.as_bytes(), None, &meshfmt_core::Budget::default());
            let e = e.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(
                e.contains("line 6: index") && e.contains("out of range"),
                "{corner}: {e}"
            );
        }
        let text = format!("{head}f -3/-1/-1 -2 -1\n");
        let m = import(text.as_bytes(), None, &meshfmt_core::Budget::default());
        assert!(matches!(m, Ok(m) if m.value.surfaces[0].positions.len() == 3));
    }

    /// A material library's materials are charged: 100,000 `newmtl` lines (about 1 MB)
    /// make far more than a 4 MiB budget holds, and the import stops on it.
    #[test]
    fn material_libraries_are_charged() {
        let mtl = "newmtl m\n".repeat(100_000).into_bytes();
        let files = vec![("m.mtl".to_string(), mtl)];
        let load: Option<&dyn SideFiles> = Some(&files);
        let budget = meshfmt_core::Budget::new(meshfmt_core::Limits {
            max_alloc_bytes: 4 << 20,
            ..meshfmt_core::Limits::DEFAULT
        });
        let text = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        let refused = import(text.as_bytes(), load, &budget).map(|_| ());
        assert!(
            matches!(&refused, Err(e) if e.to_string().contains("OBJ materials")),
            "{refused:?}"
        );
        // With room, they read (one material per line).
        let read = import(text.as_bytes(), load, &meshfmt_core::Budget::default());
        assert!(
            matches!(&read, Ok(m) if m.value.materials.len() == 100_000),
            "{:?}",
            read.map(|m| m.value.materials.len())
        );
    }
}
