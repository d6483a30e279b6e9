//! Tab completion of MCP resources after `@` (`server:uri`) and of MCP prompts as slash
//! commands (`/server:prompt `), from the lists the REPL offers
//! ([`super::input::LineSource::offer_mcp`]).

/// What the MCP servers offer to complete.
#[derive(Debug, Clone, Default)]
pub(super) struct McpOffer {
    /// `server:uri` of each listed resource.
    pub(super) resources: Vec<String>,
    /// `/server:prompt ` of each prompt.
    pub(super) prompts: Vec<String>,
}

impl McpOffer {
    /// The resources starting with `partial` (what follows the `@`).
    pub(super) fn resources(&self, partial: &str) -> Vec<String> {
        self.resources
            .iter()
            .filter(|r| r.starts_with(partial))
            .cloned()
            .collect()
    }

    /// The prompt commands starting with `typed`.
    pub(super) fn prompts(&self, typed: &str) -> Vec<String> {
        self.prompts
            .iter()
            .filter(|p| p.starts_with(typed))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_and_prompts_complete_by_prefix() {
        let offer = McpOffer {
            resources: vec!["t:note://readme".into(), "t:file:///pixel.png".into()],
            prompts: vec!["/t:review ".into()],
        };
        assert_eq!(offer.resources("t:n"), ["t:note://readme"]);
        assert_eq!(offer.resources("t:").len(), 2);
        assert!(offer.resources("x").is_empty());
        assert_eq!(offer.prompts("/t"), ["/t:review "]);
        assert!(offer.prompts("/q").is_empty());
    }
}
