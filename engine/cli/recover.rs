//! `throng recover`: makes the Parquet files of a run killed outright readable (its complete
//! row groups, from the footer kept beside each file; see output/parquet/footer.rs).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::output::parquet;

#[derive(Args)]
pub struct RecoverArgs {
    /// Parquet files (a trace or metrics file of a run that was killed).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn recover(args: RecoverArgs) -> Result<ExitCode> {
    for file in &args.files {
        let r = parquet::recover(file)?;
        if r.was_whole {
            println!("{}: already whole ({} rows in {} row groups)", file.display(), r.rows, r.row_groups);
        } else {
            println!(
                "{}: recovered {} rows in {} row groups ({} bytes of an unfinished row group cut)",
                file.display(),
                r.rows,
                r.row_groups,
                r.cut_bytes
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
