//! Task tools. Every type but `Assignee` comes from elsewhere in the crate: `Task`,
//! `Priority` and `Page` through a glob import of `crate::models` (which re-exports them
//! from its private modules), `Money` and `Currency` from a `#[path]` module.

use crate::models::*;
use crate::money::{Currency, Money};

/// Who does a task: declared in this tool file, and used by `files.rs` as well.
#[derive(Debug, serde::Serialize)]
pub struct Assignee {
    /// Their name.
    pub name: String,
    /// Where to reach them, if known.
    pub email: Option<String>,
}

/// Adds a task and returns it as stored.
///
/// # Arguments
///
/// * `task` - the task to add
/// * `assignee` - who does it, if anyone yet
pub fn add_task(task: Task, assignee: Option<Assignee>) -> Task {
    let mut task = task;
    if let Some(assignee) = assignee {
        task.tags.push(format!("@{}", assignee.name));
    }
    task
}

/// Lists the tasks of one priority, a page at a time.
///
/// # Arguments
///
/// * `priority` - only tasks this urgent
/// * `cursor` - where the page starts
pub fn list_tasks(priority: Priority, cursor: Option<u32>) -> Page<Task> {
    let cursor = cursor.unwrap_or(0);
    let all: Vec<Task> = (0..3)
        .map(|n| Task { title: format!("task {n}"), priority, tags: Vec::new(), budget: None })
        .collect();
    let items: Vec<Task> = all.iter().skip(cursor as usize).take(2).cloned().collect();
    let next = cursor + items.len() as u32;
    Page { items, total: all.len() as u32, next: (next < all.len() as u32).then_some(next) }
}

/// Adds up the budgets of tasks in one currency.
///
/// # Arguments
///
/// * `tasks` - the tasks to add up
/// * `currency` - the currency of the total; a budget in another one is an error
///
/// # Errors
///
/// A budget in another currency.
pub fn total_budget(tasks: Vec<Task>, currency: Currency) -> Result<Money, String> {
    let mut cents = 0;
    for task in &tasks {
        match task.budget {
            Some(budget) if budget.currency != currency => {
                return Err(format!("`{}` is budgeted in another currency", task.title));
            }
            Some(budget) => cents += budget.cents,
            None => {}
        }
    }
    Ok(Money { cents, currency })
}
