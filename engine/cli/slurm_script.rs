//! `throng batch BATCH --slurm-script N`: the Slurm job array script that runs a batch in N
//! shards, one array task each, and merges them with `throng report` in a job that waits for
//! every task (`--dependency=afterok`). The script submits itself when run with `bash`, and
//! resubmits the tasks named on its command line (a re-run shard resumes where it stopped).

use std::path::Path;

/// The largest number of shards: Slurm's default `MaxArraySize` is 1001 (task ids 0 to 1000).
pub const MAX_SHARDS: usize = 1000;

/// What the script is made of.
pub struct ScriptPlan<'a> {
    /// The batch file, as given on the command line (the tasks run in the submission directory).
    pub batch: &'a Path,
    /// The batch's name (for the job names).
    pub name: &'a str,
    /// Runs in the whole batch.
    pub runs: usize,
    /// The output directory: shards go in `OUT/shard-I-of-N`, logs in `OUT/logs`, the merged
    /// report in `OUT`.
    pub out: &'a Path,
    /// Shards (array tasks).
    pub shards: usize,
    /// Worker threads of each run.
    pub threads_per_job: usize,
    /// Runs at a time in each task; `None`: as many as the task's CPUs allow.
    pub jobs: Option<usize>,
}

/// A word for a shell command line: as it is when it needs no quoting, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain { s.to_string() } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

/// A job name: the batch's name in lowercase letters, digits and dashes.
fn job_name(name: &str) -> String {
    let mut out = String::from("throng");
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        out.push('-');
        out.push_str(&word.to_ascii_lowercase());
    }
    out.chars().take(64).collect()
}

/// The script.
pub fn script(p: &ScriptPlan) -> String {
    let batch = p.batch.display().to_string();
    let out = p.out.display().to_string();
    let name = job_name(p.name);
    let t = p.threads_per_job;
    let cpus = p.jobs.unwrap_or(1) * t;
    let jobs = match p.jobs {
        Some(j) => j.to_string(),
        None if t == 1 => "\"${SLURM_CPUS_PER_TASK:-1}\"".to_string(),
        None => {
            format!("$(( ${{SLURM_CPUS_PER_TASK:-{t}}} >= {t} ? ${{SLURM_CPUS_PER_TASK:-{t}}} / {t} : 1 ))")
        }
    };
    let last = p.shards - 1;
    let n = p.shards;
    let runs = p.runs;
    let command = format!(
        "throng batch {} --slurm-script {n}{}{} --out {}",
        shell_word(&batch),
        if t == 1 { String::new() } else { format!(" --threads-per-job {t}") },
        p.jobs.map(|j| format!(" --jobs {j}")).unwrap_or_default(),
        shell_word(&out)
    );
    let (batch, out_q) = (shell_word(&batch), shell_word(&out));
    format!(
        r#"#!/bin/bash
# A Slurm job array for the batch "{title}" ({runs} runs in {n} shards), and a merge
# job (`throng report`) that waits for every shard. Printed by
#   {command}
#
# Submit it from the directory it was printed in (its tasks run there):
#   bash THIS_FILE          submits the array and the merge job
#   bash THIS_FILE 3 7      resubmits shards 3 and 7 (failed or cancelled tasks: a re-run
#                           resumes its shard) and a new merge job that waits for them
# The binary is `throng` on PATH, or the one THRONG names (THRONG=/path/to/throng bash ...).
# Shard I runs in $OUT/shard-I-of-{n}, logging to $OUT/logs/shard-I.out; the merge writes
# $OUT/summary.csv and $OUT/runs.csv, and fails, writing nothing, if a shard is incomplete.
# Add #SBATCH lines for your cluster (--time, --partition, --account) below.
#SBATCH --job-name={name}
#SBATCH --array=0-{last}
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={out_shown}/logs/shard-%a.out
set -euo pipefail
THRONG=${{THRONG:-throng}}
BATCH={batch}
OUT={out_q}
SHARDS={n}

if [ -z "${{SLURM_ARRAY_TASK_ID:-}}" ]; then
  mkdir -p "$OUT/logs"
  tasks=0-$((SHARDS - 1))
  if [ $# -gt 0 ]; then tasks=$(IFS=,; echo "$*"); fi
  array=$(sbatch --parsable --array="$tasks" "$0")
  array=${{array%%;*}}
  merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
    --job-name={name}-merge --output="$OUT/logs/merge.out" \
    --wrap "$(printf '%q ' "$THRONG" report --out "$OUT") $(printf '%q' "$OUT")/shard-*-of-$SHARDS")
  echo "array job $array (shards $tasks of $SHARDS), merge job ${{merge%%;*}} after it"
  exit 0
fi

exec "$THRONG" batch "$BATCH" --shard "$SLURM_ARRAY_TASK_ID/$SHARDS" \
  --jobs {jobs} --threads-per-job {t} \
  --out "$OUT/shard-$SLURM_ARRAY_TASK_ID-of-$SHARDS" --quiet
"#,
        title = p.name.replace('\n', " "),
        out_shown = p.out.display(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("scenarios/batches/flock_sweep.toml"), "scenarios/batches/flock_sweep.toml");
        assert_eq!(shell_word("my runs/out"), "'my runs/out'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn job_names_keep_letters_and_digits() {
        assert_eq!(job_name("flock speed x separation"), "throng-flock-speed-x-separation");
        assert_eq!(job_name("RiMEA 4: fundamental diagram"), "throng-rimea-4-fundamental-diagram");
    }
}
