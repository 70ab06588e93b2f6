#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelValue
for Method {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelValueEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        let value = match self {
            Self::Get => "Get",
            Self::Post => "Post",
        };
        ::metric_handles::__private::std::fmt::Write::write_str(encoder, value)
    }
}
#[automatically_derived]
impl ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet for Route {
    fn encode(
        &self,
        encoder: &mut ::metric_handles::__private::prometheus_client::encoding::LabelSetEncoder,
    ) -> ::metric_handles::__private::std::result::Result<
        (),
        ::metric_handles::__private::std::fmt::Error,
    > {
        {
            let mut label = encoder.encode_label();
            let mut key = label.encode_label_key()?;
            ::metric_handles::__private::prometheus_client::encoding::EncodeLabelKey::encode(
                &"method",
                &mut key,
            )?;
            let mut value = key.encode_label_value()?;
            ::metric_handles::__private::prometheus_client::encoding::EncodeLabelValue::encode(
                &self.method,
                &mut value,
            )?;
            value.finish()?;
        }
        {
            let mut label = encoder.encode_label();
            let mut key = label.encode_label_key()?;
            ::metric_handles::__private::prometheus_client::encoding::EncodeLabelKey::encode(
                &"type",
                &mut key,
            )?;
            let mut value = key.encode_label_value()?;
            ::metric_handles::__private::prometheus_client::encoding::EncodeLabelValue::encode(
                &self.r#type,
                &mut value,
            )?;
            value.finish()?;
        }
        ::metric_handles::__private::prometheus_client::encoding::EncodeLabelSet::encode(
            &self.extra,
            encoder,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(())
    }
}
