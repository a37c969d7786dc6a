//! Data generation's settings, for whichever workload is chosen: where `datagenrun` writes
//! ([`directory`]), `dgset`'s check of a new `gen_*` value (the key's own range, then the
//! workload's rule over its sizes, [`Benchmark::check_generation`]), and `print datagen`'s
//! line ([`plan`]). The session calls these with the chosen workload; nothing here names one.

use std::path::{Path, PathBuf};

use super::benchmark::Benchmark;
use crate::config::{Settings, Target};
use crate::error::{Error, Result};

/// The dictionary section of the `gen_*` keys.
const SECTION: &str = "datageneration";

/// Where `datagenrun` writes: `gen_directory`, or the temporary directory when empty.
pub fn directory(settings: &Settings) -> PathBuf {
    match settings.generic.get("gen_directory") {
        "" => std::env::temp_dir(),
        dir => PathBuf::from(dir),
    }
}

/// Checks `dgset`'s new `value` for the `gen_*` key `key` before it is set: first the key's
/// own range (`dgset vu 9223372036854775807` is out of range, whatever the other sizes), then
/// `bm`'s rule over its sizes, and a directory must exist and be writable.
pub fn check_change(bm: &dyn Benchmark, settings: &Settings, key: &str, value: &str) -> Result<()> {
    settings.check(Target::Generic, SECTION, key, value)?;
    bm.check_generation(settings, key, value)?;
    if key == "gen_directory" && !value.is_empty() {
        check_writable_dir(Path::new(value))?;
    }
    Ok(())
}

/// What `print datagen` says `bm`'s `datagenrun` would make of the `gen_*` keys.
pub fn plan(bm: &dyn Benchmark, settings: &Settings) -> String {
    bm.generation_plan(settings, &directory(settings))
}

/// Refuses a path that is not an existing directory this process can write in.
pub fn check_writable_dir(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(Error::NoDirectory {
            dir: dir.display().to_string(),
            way_out: "dgset directory",
        });
    }
    let probe = dir.join(format!(".hammer-write-test-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::DirectoryNotWritable {
            dir: dir.display().to_string(),
            why: e.to_string(),
            way_out: "dgset directory",
        }),
    }
}
