// prometheus-client's encoding derives as `metric_handles::prometheus_client::encoding`
// re-exports them: every path goes through the runtime crate.

#[derive(EncodeLabelValue)]
pub enum Method {
    Get,
    Post,
}

#[derive(EncodeLabelSet)]
pub struct Route {
    pub method: Method,
    pub r#type: u32,
    #[prometheus(flatten)]
    pub extra: Extra,
}
