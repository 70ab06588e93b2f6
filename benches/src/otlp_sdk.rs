//! The [`same_shape`](crate::same_shape) workload recorded through the OpenTelemetry SDK and
//! exported by `opentelemetry-otlp` over OTLP/HTTP, its request captured by an HTTP client of
//! ours instead of sent: what our OTLP exporter's request is compared with (point by point in
//! `tests/otlp_sdk.rs`, in encode time and bytes in `benches/otlp.rs`).

use std::sync::{Arc, Mutex};

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_sdk::metrics::{
    Aggregation, Instrument, InstrumentKind, SdkMeterProvider, Stream,
};
use opentelemetry_sdk::Resource;
use prost::Message;

use crate::fixtures::{observations, ITL_BUCKETS, MODEL_NAME};
use crate::same_shape::{
    counter_value, gauge_value, observation, COUNTERS, GAUGES, HISTOGRAMS, NATIVE_BUCKETS, OBSERVED,
};

/// The scale of the exponential histograms: bucket factor 1.1 is schema (scale) 3.
pub const NATIVE_SCALE: i8 = 3;

/// An HTTP client that keeps each request body and answers 200.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    bodies: Arc<Mutex<Vec<Bytes>>>,
}

impl Capture {
    /// The bodies captured so far, oldest first.
    pub fn bodies(&self) -> Vec<Bytes> {
        self.bodies.lock().expect("lock").clone()
    }

    /// The last request, decoded.
    pub fn last_request(&self) -> ExportMetricsServiceRequest {
        let body = self.bodies().pop().expect("a request");
        ExportMetricsServiceRequest::decode(body).expect("an OTLP request")
    }
}

#[async_trait::async_trait]
impl HttpClient for Capture {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        self.bodies.lock().expect("lock").push(request.into_body());
        Ok(Response::builder().status(200).body(Bytes::new())?)
    }
}

/// A meter provider recording the shape with `label_sets` label sets (its histograms
/// exponential at [`NATIVE_SCALE`] when `native`), exporting into `capture` when flushed.
#[derive(Debug)]
pub struct SdkShape {
    /// Flush it to export.
    pub provider: SdkMeterProvider,
    /// What the exporter sent.
    pub capture: Capture,
}

/// The shape recorded through the SDK, with the values [`same_shape::ours`] records.
///
/// [`same_shape::ours`]: crate::same_shape::ours
pub fn sdk(label_sets: u32, native: bool) -> SdkShape {
    let capture = Capture::default();
    let exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_http_client(capture.clone())
        .with_endpoint("http://127.0.0.1:4318/v1/metrics")
        .build()
        .expect("an exporter");
    // Our histograms' buckets: the same explicit bounds, or exponential at our scale.
    let aggregation = if native {
        Aggregation::Base2ExponentialHistogram {
            max_size: NATIVE_BUCKETS,
            max_scale: NATIVE_SCALE,
            record_min_max: false,
        }
    } else {
        Aggregation::ExplicitBucketHistogram {
            boundaries: ITL_BUCKETS.to_vec(),
            record_min_max: false,
        }
    };
    let builder = SdkMeterProvider::builder()
        .with_periodic_exporter(exporter)
        .with_resource(
            Resource::builder_empty()
                .with_service_name("same-shape")
                .build(),
        )
        .with_view(move |instrument: &Instrument| {
            (instrument.kind() == InstrumentKind::Histogram).then(|| {
                Stream::builder()
                    .with_aggregation(aggregation.clone())
                    .build()
                    .expect("a valid stream")
            })
        });
    let provider = builder.build();
    let meter = provider.meter("same-shape");
    let help = "One family of the same shape";
    let counters: Vec<_> = (0..COUNTERS)
        .map(|i| {
            meter
                .u64_counter(format!("shape_counter_{i}"))
                .with_description(help)
                .build()
        })
        .collect();
    let gauges: Vec<_> = (0..GAUGES)
        .map(|i| {
            meter
                .i64_gauge(format!("shape_gauge_{i}"))
                .with_description(help)
                .build()
        })
        .collect();
    let histograms: Vec<_> = (0..HISTOGRAMS)
        .map(|i| {
            meter
                .f64_histogram(format!("shape_histogram_{i}"))
                .with_description(help)
                .build()
        })
        .collect();
    let values = observations();
    for engine in 0..label_sets {
        let attributes = [
            KeyValue::new("model_name", MODEL_NAME),
            KeyValue::new("engine", engine.to_string()),
        ];
        for (i, counter) in counters.iter().enumerate() {
            counter.add(counter_value(engine, i), &attributes);
        }
        for (i, gauge) in gauges.iter().enumerate() {
            gauge.record(gauge_value(engine, i), &attributes);
        }
        for (i, histogram) in histograms.iter().enumerate() {
            for k in 0..OBSERVED {
                histogram.record(values[observation(engine, i, k)], &attributes);
            }
        }
    }
    SdkShape { provider, capture }
}

/// A collector that accepts everything: an HTTP/1.1 server on 127.0.0.1 answering 200 to each
/// request (keep-alive), for the exporter to push to while a benchmark records. Returns its
/// `/v1/metrics` URL; its threads live as long as the process.
pub fn sink() -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let url = format!("http://{}/v1/metrics", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut writer = stream;
                loop {
                    let mut length = 0;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line.trim_end().is_empty() {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':') {
                            if name.eq_ignore_ascii_case("content-length") {
                                length = value.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err()
                        || writer
                            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                            .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    url
}
