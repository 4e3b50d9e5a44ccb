//! Reading back what throng wrote as Parquet (`render` and `plot` take Parquet traces and
//! metrics): telling a Parquet file by its magic bytes, and opening it whole.

use std::fs::File;
use std::io::Read;

use anyhow::{Result, anyhow};
use parquet::file::reader::{FileReader, SerializedFileReader};

/// Whether `file` starts with Parquet's magic bytes (read from where it stands, the start).
pub fn starts_as_parquet(file: &mut File) -> bool {
    let mut magic = [0u8; 4];
    file.read_exact(&mut magic).is_ok() && &magic == b"PAR1"
}

/// A reader of the whole Parquet file `file` (shown as `shown` in messages); a file a killed
/// run left without its footer is refused with the way out.
pub fn open_whole(shown: &str, file: File) -> Result<SerializedFileReader<File>> {
    SerializedFileReader::new(file).map_err(|e| {
        anyhow!("{shown}: not a whole Parquet file ({e}); a run killed while writing it leaves it so: `throng recover {shown}`")
    })
}

/// The names of a Parquet file's columns, in order.
pub fn column_names(reader: &SerializedFileReader<File>) -> Vec<String> {
    reader.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.name().to_string()).collect()
}
