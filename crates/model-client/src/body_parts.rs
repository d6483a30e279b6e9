//! A user message with attachments as sent: its content as an array of parts.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use smallebot_application::ports::ModelPart;

/// A user message's content parts: `{"text": …, "type": "text"}` for its text (when
/// not empty) and each text part, `{"image_url": {"url": …}, "type": "image_url"}`
/// for an image.
pub(crate) struct Parts<'a> {
    /// The message's text.
    pub(crate) text: &'a str,
    /// What its attachments became.
    pub(crate) parts: &'a [ModelPart],
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = (!self.text.is_empty()).then_some(self.text);
        let mut seq = serializer.serialize_seq(None)?;
        for part in text
            .into_iter()
            .map(Part::Text)
            .chain(self.parts.iter().map(|p| match p {
                ModelPart::Text { text } => Part::Text(text),
                ModelPart::Image { data_url } => Part::Image(data_url),
            }))
        {
            seq.serialize_element(&part)?;
        }
        seq.end()
    }
}

/// One content part as sent.
enum Part<'a> {
    Text(&'a str),
    Image(&'a str),
}

/// `{"url": …}`
struct Url<'a>(&'a str);

impl Serialize for Url<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("url", self.0)?;
        map.end()
    }
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Self::Text(text) => {
                map.serialize_entry("text", text)?;
                map.serialize_entry("type", "text")?;
            }
            Self::Image(url) => {
                map.serialize_entry("image_url", &Url(url))?;
                map.serialize_entry("type", "image_url")?;
            }
        }
        map.end()
    }
}
