//! Dependency graph checks: the `dependsOn` links of a task list must form a DAG.
//!
//! [`TaskList::add`] can only name existing tasks, so it cannot close a cycle itself;
//! these checks report cycles in files edited by hand.

use std::collections::{HashMap, HashSet};

use super::model::TaskList;

impl TaskList {
    /// A dependency cycle anywhere in the list, listed along the cycle with its first id
    /// repeated last (`["1","2","1"]`), or `None` when the dependencies form a DAG.
    /// Dependencies naming no task are ignored here.
    #[must_use]
    pub fn find_cycle(&self) -> Option<Vec<String>> {
        let all: Vec<String> = self.tasks.iter().map(|t| t.id.clone()).collect();
        self.find_cycle_from(&all)
    }

    /// A dependency cycle reachable from the given task ids, as in [`TaskList::find_cycle`].
    #[must_use]
    pub fn find_cycle_from(&self, starts: &[String]) -> Option<Vec<String>> {
        let edges: HashMap<&str, &[String]> = self
            .tasks
            .iter()
            .map(|t| (t.id.as_str(), t.depends_on.as_slice()))
            .collect();
        let mut finished: HashSet<&str> = HashSet::new();
        for start in starts {
            let Some((&start, _)) = edges.get_key_value(start.as_str()) else {
                continue;
            };
            if finished.contains(start) {
                continue;
            }
            // Iterative depth-first search: the path and, per node, the next edge to follow.
            let mut path: Vec<(&str, usize)> = vec![(start, 0)];
            while let Some(top) = path.last_mut() {
                let (node, next) = *top;
                top.1 += 1;
                let deps = edges.get(node).copied().unwrap_or_default();
                let Some(dep) = deps.get(next) else {
                    finished.insert(node);
                    path.pop();
                    continue;
                };
                let Some((&dep, _)) = edges.get_key_value(dep.as_str()) else {
                    continue;
                };
                if let Some(at) = path.iter().position(|(n, _)| *n == dep) {
                    let mut cycle: Vec<String> =
                        path[at..].iter().map(|(n, _)| (*n).to_owned()).collect();
                    cycle.push(dep.to_owned());
                    return Some(cycle);
                }
                if !finished.contains(dep) {
                    path.push((dep, 0));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::tasks::model::TaskStatus;

    use crate::tasks::test_fixtures::{ids, list_of};

    use TaskStatus::Pending;

    #[test]
    fn cycles_in_hand_edited_files_are_reported() {
        type Spec = &'static [(&'static [&'static str], TaskStatus)];
        let cases: [(Spec, Option<&[&str]>); 5] = [
            (&[(&[], Pending), (&["1"], Pending)], None),
            (&[(&["1"], Pending)], Some(&["1", "1"])),
            (
                &[(&["2"], Pending), (&["1"], Pending)],
                Some(&["1", "2", "1"]),
            ),
            (
                &[(&[], Pending), (&["3"], Pending), (&["2"], Pending)],
                Some(&["2", "3", "2"]),
            ),
            (&[(&["9"], Pending), (&["1"], Pending)], None), // dangling ids are not cycles
        ];
        for (spec, expected) in cases {
            let list = list_of(spec);
            assert_eq!(list.find_cycle(), expected.map(ids), "{spec:?}");
        }
    }

    #[test]
    fn find_cycle_from_only_follows_the_given_tasks() {
        let list = list_of(&[(&[], Pending), (&["3"], Pending), (&["2"], Pending)]);
        assert_eq!(list.find_cycle_from(&ids(&["1"])), None);
        assert_eq!(
            list.find_cycle_from(&ids(&["3", "9"])),
            Some(ids(&["3", "2", "3"]))
        );
    }
}
