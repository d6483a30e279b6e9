//! [`AgentServices`]: the service each agent ran in last, reused while its definition
//! is unchanged.
//!
//! A sub-agent's service holds its history builder, which counts the agent's system
//! prompt and tool schemas once and keeps the counts; a service built per run counted
//! them again for every `Delegate` call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use smallebot_core::agents::AgentDefinition;

/// By agent name: the definition a service was built for, and the service.
pub(crate) struct AgentServices<S> {
    built: Mutex<HashMap<String, (AgentDefinition, Arc<S>)>>,
}

impl<S> Default for AgentServices<S> {
    fn default() -> Self {
        Self {
            built: Mutex::default(),
        }
    }
}

impl<S> AgentServices<S> {
    /// The service built for `definition` before, when its agent's definition is still
    /// the same; else the one `build` makes now, kept in place of the old one.
    pub(crate) fn get_or_build(
        &self,
        definition: &AgentDefinition,
        build: impl FnOnce() -> Arc<S>,
    ) -> Arc<S> {
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built_for, service)) = built.get(&definition.name)
            && built_for == definition
        {
            return Arc::clone(service);
        }
        let service = build();
        built.insert(
            definition.name.clone(),
            (definition.clone(), Arc::clone(&service)),
        );
        service
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn agent(name: &str, prompt: &str) -> AgentDefinition {
        AgentDefinition {
            name: name.to_owned(),
            prompt: prompt.to_owned(),
            ..AgentDefinition::general()
        }
    }

    #[test]
    fn an_unchanged_agent_reuses_its_service_and_a_changed_one_gets_a_new_one() {
        let services = AgentServices::default();
        let builds = std::cell::Cell::new(0);
        let get = |definition: &AgentDefinition| {
            services.get_or_build(definition, || {
                builds.set(builds.get() + 1);
                Arc::new(definition.prompt.clone())
            })
        };
        let first = get(&agent("worker", "You are worker."));
        let again = get(&agent("worker", "You are worker."));
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(builds.get(), 1);

        let other = get(&agent("reader", "You are reader."));
        assert_eq!(*other, "You are reader.");
        assert_eq!(builds.get(), 2);

        let edited = get(&agent("worker", "You are worker, edited."));
        assert_eq!(*edited, "You are worker, edited.");
        assert_eq!(builds.get(), 3);
        // The edited definition replaced the old one: the old text builds anew.
        let back = get(&agent("worker", "You are worker."));
        assert!(!Arc::ptr_eq(&first, &back));
        assert_eq!(builds.get(), 4);
    }
}
