//! The proxy-wasm host calls: the root context reads the plugin configuration, each HTTP
//! context runs one [`Exchange`] and carries out its outcome, and counters go to the host's
//! metrics (`utf8gate_requests_total.<decision>`, `utf8gate_findings_total.<kind>`; the shipped
//! Envoy configuration turns the suffixes into labels).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel, MetricType};

use crate::exchange::{BodyStep, Decided, Edits, Exchange, HeadStep, Outcome};
use crate::settings::Settings;

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Warn);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root::default()) });
}}

/// The plugin: its settings, shared with every request's context.
#[derive(Default)]
struct Root {
    settings: Rc<Settings>,
}

impl Context for Root {}

impl RootContext for Root {
    fn on_configure(&mut self, _size: usize) -> bool {
        let configuration = self.get_plugin_configuration().unwrap_or_default();
        match Settings::parse(&configuration) {
            Ok(settings) => {
                self.settings = Rc::new(settings);
                // The NFC tables built now, not in the first request.
                utf8gate_policy::prepare();
                true
            }
            Err(error) => {
                log::error!("utf8gate: {error}");
                false
            }
        }
    }

    fn create_http_context(&self, _id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Request {
            settings: Rc::clone(&self.settings),
            exchange: None,
            seen: 0,
        }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

/// One request.
struct Request {
    settings: Rc<Settings>,
    /// The head, while its body is awaited.
    exchange: Option<Exchange>,
    /// The body bytes buffered so far.
    seen: usize,
}

impl Context for Request {}

impl HttpContext for Request {
    fn on_http_request_headers(&mut self, _count: usize, end_of_stream: bool) -> Action {
        let list = self.get_http_request_headers_bytes();
        match Exchange::head(&self.settings, list, end_of_stream) {
            HeadStep::Decided(decided) => self.carry_out(*decided),
            // The head goes on with its edits, to the buffer filter after this one, which holds
            // it until the body is whole; the body decides (see `exchange`).
            HeadStep::Body(exchange, edits) => {
                self.exchange = Some(*exchange);
                self.edit(edits);
                Action::Continue
            }
        }
    }

    fn on_http_request_body(&mut self, body_size: usize, end_of_stream: bool) -> Action {
        self.seen = body_size;
        self.step(end_of_stream)
    }

    fn on_http_request_trailers(&mut self, _count: usize) -> Action {
        self.step(true)
    }
}

impl Request {
    /// The body so far: wait for more, or decide.
    fn step(&mut self, end_of_stream: bool) -> Action {
        let Some(exchange) = self.exchange.take() else {
            return Action::Continue;
        };
        match exchange.body(&self.settings, self.seen, end_of_stream) {
            BodyStep::Wait => {
                self.exchange = Some(exchange);
                Action::Pause
            }
            BodyStep::Read { len, cut } => {
                let body = self.get_http_request_body(0, len).unwrap_or_default();
                let decided = exchange.finish(&self.settings, body, cut);
                self.carry_out(decided)
            }
            BodyStep::Decided(decided) => self.carry_out(*decided),
        }
    }

    /// Counts `decided` and does what it says.
    fn carry_out(&mut self, decided: Decided) -> Action {
        count("utf8gate_requests_total", decided.decision, 1);
        for (kind, n) in decided.verdict.iter().flat_map(|v| &v.counts) {
            count("utf8gate_findings_total", kind, *n);
        }
        match decided.outcome {
            Outcome::Continue => Action::Continue,
            Outcome::Rewrite(edits) => {
                self.edit(edits);
                Action::Continue
            }
            Outcome::Reply {
                status,
                headers,
                body,
            } => {
                let headers = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                self.send_http_response(u32::from(status), headers, Some(&body));
                Action::Pause
            }
        }
    }

    /// Makes `edits`: each header's values replaced (none: removed), the body replaced.
    fn edit(&self, edits: Edits) {
        for (name, values) in &edits.headers {
            let mut values = values.iter();
            self.set_http_request_header_bytes(name, values.next().map(Vec::as_slice));
            for value in values {
                self.add_http_request_header_bytes(name, value);
            }
        }
        if let Some(body) = &edits.body {
            self.set_http_request_body(0, self.seen, body);
        }
    }
}

/// The host's metric ids by name, defined on first use, and the buffer a name is written
/// into to look it up (a request allocates nothing for its counters).
#[derive(Default)]
struct Counters {
    ids: HashMap<String, u32>,
    name: String,
}

thread_local! {
    static COUNTERS: RefCell<Counters> = RefCell::default();
}

/// Adds `n` to the counter `family.suffix`, defining it first; a host without metrics is
/// ignored.
fn count(family: &str, suffix: &str, n: u64) {
    COUNTERS.with(|counters| {
        let Counters { ids, name } = &mut *counters.borrow_mut();
        name.clear();
        name.push_str(family);
        name.push('.');
        name.push_str(suffix);
        let id = match ids.get(name.as_str()) {
            Some(id) => *id,
            None => match proxy_wasm::hostcalls::define_metric(MetricType::Counter, name) {
                Ok(id) => *ids.entry(name.clone()).or_insert(id),
                Err(_) => return,
            },
        };
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let _ = proxy_wasm::hostcalls::increment_metric(id, n);
    });
}
