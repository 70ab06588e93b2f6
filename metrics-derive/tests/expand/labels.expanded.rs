#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet
for EngineLabels {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelSetEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        let _ = &encoder;
        {
            let mut label = encoder.encode_label();
            let mut key = label.encode_label_key()?;
            ::metric_handles::__private::std::fmt::Write::write_str(&mut key, "model")?;
            let mut value = key.encode_label_value()?;
            ::metric_handles::__private::LabelValue::encode_value(
                &self.model_name,
                &mut value,
            )?;
            value.finish()?;
        }
        {
            let mut label = encoder.encode_label();
            let mut key = label.encode_label_key()?;
            ::metric_handles::__private::std::fmt::Write::write_str(&mut key, "engine")?;
            let mut value = key.encode_label_value()?;
            ::metric_handles::__private::LabelValue::encode_value(
                &self.engine,
                &mut value,
            )?;
            value.finish()?;
        }
        ::metric_handles::__private::std::result::Result::Ok(())
    }
}
#[automatically_derived]
impl ::metric_handles::LabelSet for EngineLabels {
    const KEYS: &'static [&'static str] = &["model", "engine"];
}
#[automatically_derived]
impl ::metric_handles::LabelEnum for FinishReason {
    const VARIANTS: &'static [Self] = &[Self::Stop, Self::Length, Self::AbortedByUser];
    const VALUES: &'static [&'static str] = &["stop", "too_long", "aborted_by_user"];
    #[inline]
    fn index(self) -> usize {
        match self {
            Self::Stop => 0,
            Self::Length => 1,
            Self::AbortedByUser => 2,
        }
    }
}
#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelValue
for FinishReason {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelValueEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        let value = match self {
            Self::Stop => "stop",
            Self::Length => "too_long",
            Self::AbortedByUser => "aborted_by_user",
        };
        ::metric_handles::__private::std::fmt::Write::write_str(encoder, value)
    }
}
