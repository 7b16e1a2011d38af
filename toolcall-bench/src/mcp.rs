//! The MCP benchmark's two servers of the same three tools (`add`, `get_weather`,
//! `create_order`): ours ([`toolcall_mcp::McpServer`] over the generated toolset) and the
//! one a user would write with rmcp's `#[tool_router]`/`#[tool]` macros instead
//! ([`MacroServer`]), which needs its argument types to derive `JsonSchema` as well.
//! Both answer a call with the result's JSON text, plus `structuredContent` for the two
//! tools whose results are objects, so they send the same bytes.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

use crate::tools::{math, orders, weather};

/// Our server of the three tools.
pub fn toolcall_server() -> toolcall_mcp::McpServer<()> {
    toolcall_mcp::McpServer::new(&crate::toolset::ALL, ())
}

/// `add`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// the first addend
    pub a: i64,
    /// the second addend
    pub b: i64,
}

/// `get_weather`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct WeatherArgs {
    /// city name, e.g. "Oslo"
    pub city: String,
    /// how many days ahead (1-7)
    pub days: Option<u32>,
}

/// Where an order is shipped.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Address {
    /// Street and house number.
    pub street: String,
    /// City.
    pub city: String,
    /// Postal code.
    pub zip: String,
    /// ISO 3166 country code.
    pub country: Option<String>,
}

/// One line of an order.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct LineItem {
    /// Stock-keeping unit.
    pub sku: String,
    /// How many.
    pub quantity: u32,
    /// Price of one unit, in cents.
    pub unit_cents: u64,
}

/// An order.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Order {
    /// Who orders.
    pub customer: String,
    /// Where to ship.
    pub address: Address,
    /// What to ship.
    pub items: Vec<LineItem>,
    /// A note for the packer.
    pub note: Option<String>,
}

/// `create_order`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct OrderArgs {
    /// the order to place
    pub order: Order,
}

/// The same three tools on rmcp's macros.
#[derive(Clone)]
pub struct MacroServer {
    tool_router: ToolRouter<Self>,
}

impl Default for MacroServer {
    fn default() -> Self {
        MacroServer { tool_router: Self::tool_router() }
    }
}

fn text_result<T: Serialize>(value: &T, structured: bool) -> Result<CallToolResult, ErrorData> {
    let json = serde_json::to_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(json.to_string())]);
    if structured {
        result.structured_content = Some(json);
    }
    Ok(result)
}

#[tool_router]
impl MacroServer {
    /// Add two whole numbers.
    #[tool(description = "Add two whole numbers.")]
    fn add(&self, Parameters(args): Parameters<AddArgs>) -> Result<CallToolResult, ErrorData> {
        text_result(&math::add(args.a, args.b), false)
    }

    /// Get the forecast for a city.
    #[tool(description = "Get the forecast for a city.")]
    fn get_weather(&self, Parameters(args): Parameters<WeatherArgs>) -> Result<CallToolResult, ErrorData> {
        text_result(&weather::get_weather(args.city, args.days), true)
    }

    /// Place an order.
    #[tool(description = "Place an order.")]
    fn create_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<CallToolResult, ErrorData> {
        let order = args.order;
        let order = orders::Order {
            customer: order.customer,
            address: orders::Address {
                street: order.address.street,
                city: order.address.city,
                zip: order.address.zip,
                country: order.address.country,
            },
            items: order
                .items
                .into_iter()
                .map(|i| orders::LineItem { sku: i.sku, quantity: i.quantity, unit_cents: i.unit_cents })
                .collect(),
            note: order.note,
        };
        text_result(&orders::create_order(order), true)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MacroServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
