//! Which tools a connection sees (FAKE-5): the facade, or the legacy deferred surface with its
//! per-connection promotions.

use crate::facade;
use crate::legacy;
use crate::scenario::{Scenario, SurfaceChoice};
use serde_json::Value;

pub enum Surface {
    Facade,
    Legacy(Legacy),
}

pub struct Legacy {
    /// Preset tools plus everything promoted so far, in listing order.
    pub eager: Vec<String>,
    /// `GORTEX_TOOLS_MODE=hide`: no `tools_search`, no calls outside the list.
    pub hide: bool,
}

/// How a `tools/call` name resolves on this surface.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    Callable,
    ToolsSearch,
    /// Hidden in `hide` mode, or not a facade tool.
    NotAvailable,
    NotFound,
}

impl Surface {
    pub fn from_env(sc: &Scenario) -> Surface {
        let tools = std::env::var("GORTEX_TOOLS")
            .ok()
            .filter(|t| !t.trim().is_empty());
        let legacy = match sc.surface {
            SurfaceChoice::Facade => false,
            SurfaceChoice::Legacy => true,
            SurfaceChoice::Auto => tools.is_some(),
        };
        if !legacy {
            return Surface::Facade;
        }
        let hide = std::env::var("GORTEX_TOOLS_MODE")
            .map(|m| m.trim().eq_ignore_ascii_case("hide"))
            .unwrap_or(false);
        Surface::Legacy(Legacy {
            eager: legacy::preset(tools.as_deref().unwrap_or("nav")),
            hide,
        })
    }

    pub fn is_facade(&self) -> bool {
        matches!(self, Surface::Facade)
    }

    /// Tool names in listing order.
    pub fn listed_names(&self) -> Vec<String> {
        match self {
            Surface::Facade => facade::FACADE_TOOLS.iter().map(|s| s.to_string()).collect(),
            Surface::Legacy(l) => {
                let mut names = l.eager.clone();
                names.push("tool_profile".to_string());
                if !l.hide {
                    names.push("tools_search".to_string());
                }
                names
            }
        }
    }

    pub fn listed_tools(&self) -> Vec<Value> {
        let facade = self.is_facade();
        self.listed_names()
            .iter()
            .map(|n| {
                if facade {
                    facade::tool(n)
                } else {
                    legacy::tool(n)
                }
            })
            .collect()
    }

    /// Resolves a call; a direct call to a deferred name promotes it silently.
    pub fn resolve(&mut self, name: &str) -> Resolved {
        match self {
            Surface::Facade => {
                if facade::is_facade(name) {
                    Resolved::Callable
                } else {
                    Resolved::NotAvailable
                }
            }
            Surface::Legacy(l) => {
                if name == "tools_search" {
                    return if l.hide {
                        Resolved::NotAvailable
                    } else {
                        Resolved::ToolsSearch
                    };
                }
                if name == "tool_profile" || l.eager.iter().any(|e| e == name) {
                    return Resolved::Callable;
                }
                if l.hide {
                    return Resolved::NotAvailable;
                }
                if l.deferred().contains(&name) {
                    l.eager.push(name.to_string());
                    return Resolved::Callable;
                }
                Resolved::NotFound
            }
        }
    }
}

impl Legacy {
    /// Catalogue names not (yet) in the eager list.
    pub fn deferred(&self) -> Vec<&'static str> {
        legacy::catalogue()
            .into_iter()
            .filter(|n| !self.eager.iter().any(|e| e == n))
            .collect()
    }
}
