//! MCP resources and prompts in the chat: `@server:uri` attaches a resource's contents
//! as a file (counted, stored once, searchable like any attachment), `/server:prompt
//! ARGS` sends a prompt's messages (a required argument not given is asked for), `/help`
//! lists the prompts, and Tab completes both.

use std::collections::BTreeMap;
use std::io::Write;

use smallebot_core::rules::attachment::{AttachmentRefusal, clean_name};
use smallebot_core::rules::mcp_mentions::{ResourceMention, prompt_arguments};
use smallebot_mcp::{
    McpPrompt, McpRequestError, McpResourceContents, McpServers, prompt_message_text,
};

use super::super::input::{Input, LineSource};
use super::Repl;
use crate::attach_files::FileToAttach;
use crate::chat::slash::HELP;
use crate::error::TerminalError;

impl<W: Write> Repl<W> {
    /// The names of the enabled MCP servers.
    pub(super) fn mcp_servers(&self) -> Vec<String> {
        self.mcp
            .as_ref()
            .map(|mcp| mcp.server_names())
            .unwrap_or_default()
    }

    /// Reads the resources `mentioned` as files to attach: text as text (named after
    /// the URI's last part), binary contents decoded; each within `maxFileBytes`.
    ///
    /// # Errors
    /// A read failed (naming the server), or a resource is too large.
    pub(super) async fn read_resources(
        &self,
        mentioned: &[ResourceMention<'_>],
    ) -> Result<Vec<FileToAttach>, TerminalError> {
        let Some(mcp) = &self.mcp else {
            return Ok(Vec::new());
        };
        let limit = self.service.settings().attachments.max_file_bytes;
        let mut files = Vec::new();
        for mention in mentioned {
            for part in mcp.read_resource(mention.server, mention.uri).await? {
                let (name, content) = resource_file(mention.server, part)?;
                let size = i64::try_from(content.len()).unwrap_or(i64::MAX);
                if size > limit {
                    return Err(AttachmentRefusal::FileTooLarge {
                        name: clean_name(&name),
                        size,
                        limit,
                    }
                    .into());
                }
                files.push(FileToAttach::from_content(name, content)?);
            }
        }
        Ok(files)
    }

    /// `/help`: the commands, then the MCP servers' prompts.
    pub(super) async fn help(&mut self) -> Result<(), TerminalError> {
        let prompts = self.mcp_prompts().await;
        let mut text = HELP.to_owned();
        if !prompts.is_empty() {
            text.push_str("\nMCP prompts:");
            for prompt in &prompts {
                text.push_str(&format!("\n  {}", prompt_usage(prompt)));
                if let Some(description) = &prompt.description {
                    text.push_str(&format!("\n                 {description}"));
                }
            }
        }
        self.say(&text)
    }

    /// Every enabled server's prompts (a server that cannot list them is left out).
    async fn mcp_prompts(&self) -> Vec<McpPrompt> {
        match &self.mcp {
            Some(mcp) => {
                mcp.from_every_server(|server| async move { mcp.prompts(&server).await })
                    .await
            }
            None => Vec::new(),
        }
    }

    /// Tells the input which resources `@` and which prompts `/` complete.
    pub(super) async fn offer_mcp<S: LineSource>(&self, input: &mut S) {
        let Some(mcp) = self.mcp.as_ref().filter(|_| input.draws_prompt()) else {
            return;
        };
        let resources = mcp
            .from_every_server(|server| async move { mcp.resources(&server).await })
            .await
            .into_iter()
            .map(|r| format!("{}:{}", r.server, r.uri))
            .collect();
        let prompts = self
            .mcp_prompts()
            .await
            .iter()
            .map(|p| format!("/{}:{} ", p.server, p.name))
            .collect();
        input.offer_mcp(resources, prompts);
    }

    /// `/server:prompt ARGS`: the prompt's missing required arguments are asked for
    /// (an empty answer or Ctrl+C gives up), then its messages are sent as one message.
    pub(super) async fn mcp_prompt<S: LineSource>(
        &mut self,
        server: &str,
        name: &str,
        args: &str,
        input: &mut S,
    ) -> Result<(), TerminalError> {
        let Some(mcp) = self.mcp.clone() else {
            return self.say("No MCP servers (add them to mcp.json in the home directory).");
        };
        let prompts = mcp.prompts(server).await?;
        let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
            let known: Vec<String> = prompts.iter().map(prompt_usage).collect();
            return self.say(&format!(
                "the MCP server '{server}' has no prompt '{name}'{}",
                if known.is_empty() {
                    String::new()
                } else {
                    format!("; it has: {}", known.join(", "))
                }
            ));
        };
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        let mut given = prompt_arguments(args, &names);
        for missing in prompt.missing_arguments(&given) {
            let Some(answer) = self.ask_argument(prompt, &missing, input).await? else {
                return self.say("the prompt was not sent");
            };
            given.insert(missing, answer);
        }
        let text = prompt_text(&mcp, prompt, &given).await?;
        // What the prompt expanded to is what the person sends: they see it.
        self.say(&format!("/{server}:{name} sends:"))?;
        for line in prompt_preview(&text) {
            self.say(&line)?;
        }
        self.exact_counts().await;
        self.turn(text, input).await
    }

    /// Asks for the argument `name` of `prompt`; `None` when the person gives none.
    async fn ask_argument<S: LineSource>(
        &mut self,
        prompt: &McpPrompt,
        name: &str,
        input: &mut S,
    ) -> Result<Option<String>, TerminalError> {
        let about = prompt
            .arguments
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| a.description.clone())
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let question = format!("{name}{about}: ");
        if !input.draws_prompt() {
            write!(self.printer.out(), "{question}")?;
            self.printer.out().flush()?;
        }
        Ok(match input.read(&question).await? {
            Input::Line(line) if !line.trim().is_empty() => Some(line.trim().to_owned()),
            _ => None,
        })
    }
}

/// A resource's contents as a file to attach: its name and bytes
/// ([`McpResourceContents::into_file`]).
///
/// # Errors
/// [`TerminalError::McpBlobUndecodable`] when the base64 does not decode.
fn resource_file(
    server: &str,
    part: McpResourceContents,
) -> Result<(String, Vec<u8>), TerminalError> {
    part.into_file(server).map_err(|error| match error {
        McpRequestError::Undecodable {
            server,
            uri,
            reason,
        } => TerminalError::McpBlobUndecodable {
            server,
            uri,
            reason,
        },
        other => other.into(),
    })
}

/// The most lines of a prompt's text shown before it is sent.
const PREVIEW_LINES: usize = 10;

/// A prompt's text as shown before it is sent: its first [`PREVIEW_LINES`] lines
/// indented, then how many more there are.
fn prompt_preview(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(PREVIEW_LINES)
        .map(|line| format!("  {line}"))
        .collect();
    let more = lines.len().saturating_sub(PREVIEW_LINES);
    if more > 0 {
        shown.push(format!(
            "  … {more} more line{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    shown
}

/// `/server:prompt ARG [OPTIONAL]`, as `/help` shows it.
fn prompt_usage(prompt: &McpPrompt) -> String {
    let mut usage = format!("/{}:{}", prompt.server, prompt.name);
    for argument in &prompt.arguments {
        let shown = argument.name.to_uppercase();
        if argument.required {
            usage.push_str(&format!(" {shown}"));
        } else {
            usage.push_str(&format!(" [{shown}]"));
        }
    }
    usage
}

/// The prompt's messages as the text of one message ([`prompt_message_text`]).
async fn prompt_text(
    mcp: &McpServers,
    prompt: &McpPrompt,
    given: &BTreeMap<String, String>,
) -> Result<String, TerminalError> {
    let messages = mcp.get_prompt(&prompt.server, &prompt.name, given).await?;
    Ok(prompt_message_text(&messages))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn blob(base64: &str) -> McpResourceContents {
        McpResourceContents::Blob {
            uri: "file:///pixel.png".to_owned(),
            mime_type: Some("image/png".to_owned()),
            size: 3,
            base64: base64.to_owned(),
        }
    }

    #[test]
    fn a_prompts_preview_shows_its_first_lines_and_how_many_more() {
        let cases: [(&str, Vec<String>); 3] = [
            (
                "What's weather in Lisbon?",
                vec!["  What's weather in Lisbon?".into()],
            ),
            ("a\n\nb", vec!["  a".into(), "  ".into(), "  b".into()]),
            (
                &"x\n".repeat(12),
                (0..10)
                    .map(|_| "  x".to_owned())
                    .chain(["  … 2 more lines".to_owned()])
                    .collect(),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(prompt_preview(text), expected, "{text:?}");
        }
    }

    #[test]
    fn a_resource_becomes_a_named_file_and_bad_base64_is_an_error_naming_it() {
        let text = McpResourceContents::Text {
            uri: "file:///docs/readme.md".to_owned(),
            mime_type: None,
            text: "hello".to_owned(),
        };
        let (name, bytes) = resource_file("t", text).unwrap();
        assert!(name.contains("readme.md"), "{name}");
        assert_eq!(bytes, b"hello");

        let (name, bytes) = resource_file("t", blob("AAEC")).unwrap();
        assert!(name.contains("pixel.png"), "{name}");
        assert_eq!(bytes, [0, 1, 2]);

        let error = resource_file("t", blob("not base64!"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("'t'")
                && error.contains("file:///pixel.png")
                && error.contains("not attached"),
            "{error}"
        );
    }
}
