//! The cheapest useful proxy-wasm filter: it reads one request header and lets the request go
//! on. `bench/envoy.sh` loads it beside utf8gate's filter, so that the runtime's own cost
//! (a VM call per request, the header copied in) is measured apart from utf8gate's.
//!
//! `cargo build --profile wasm --target wasm32-wasip1 -p utf8gate-proxy-wasm --example
//! one_header`; on any other target it is empty.

#[cfg(target_arch = "wasm32")]
mod filter {
    use proxy_wasm::traits::{Context, HttpContext, RootContext};
    use proxy_wasm::types::{Action, ContextType};

    proxy_wasm::main! {{
        proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root) });
    }}

    struct Root;

    impl Context for Root {}

    impl RootContext for Root {
        fn create_http_context(&self, _id: u32) -> Option<Box<dyn HttpContext>> {
            Some(Box::new(Request))
        }

        fn get_type(&self) -> Option<ContextType> {
            Some(ContextType::HttpContext)
        }
    }

    struct Request;

    impl Context for Request {}

    impl HttpContext for Request {
        fn on_http_request_headers(&mut self, _count: usize, _end: bool) -> Action {
            // Read, and used, so that the call is not optimized away.
            match self.get_http_request_header_bytes(":path") {
                Some(path) if path.is_empty() => Action::Pause,
                _ => Action::Continue,
            }
        }
    }
}
