//! A small blocking HTTP/1.1 client for the built-in load clients: one request per connection
//! (`Connection: close`), the response body handed over as it arrives, de-chunked. Enough for
//! the demo's own server on loopback; it sets timeouts so a stuck server cannot hang a client.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a client waits for any byte from the server.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

/// Sends `POST path` with a JSON `body`; calls `on_body` with each piece of the response body
/// as it arrives. Returns the status code.
pub fn post_json(
    addr: SocketAddr,
    path: &str,
    body: &[u8],
    mut on_body: impl FnMut(&[u8]),
) -> io::Result<u16> {
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let _ = stream.set_nodelay(true);
    let mut writer = &stream;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body)?;
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid(format!("bad status line {line:?}")))?;
    let mut length = None;
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(invalid("the connection closed inside the response head"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| invalid("bad content-length"))?,
                );
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
    }
    if chunked {
        read_chunked(&mut reader, &mut on_body)?;
    } else {
        let mut body = reader.take(length.unwrap_or(u64::MAX));
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = body.read(&mut buf)?;
            if n == 0 {
                break;
            }
            on_body(&buf[..n]);
        }
    }
    Ok(status)
}

fn read_chunked(reader: &mut impl BufRead, on_body: &mut impl FnMut(&[u8])) -> io::Result<()> {
    let mut line = String::new();
    let mut chunk = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(invalid("the connection closed inside a chunked body"));
        }
        let size = line.trim_end().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size.trim(), 16).map_err(|_| invalid("bad chunk size"))?;
        if size == 0 {
            // Trailers, if any, up to the empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                    return Ok(());
                }
            }
        }
        chunk.resize(size, 0);
        reader.read_exact(&mut chunk)?;
        on_body(&chunk);
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// Splits a server-sent-event stream into the `data:` payloads of its events.
#[derive(Default)]
pub struct SseReader {
    buffer: Vec<u8>,
}

impl SseReader {
    /// Adds received bytes; calls `on_data` with each complete event's data.
    pub fn feed(&mut self, bytes: &[u8], mut on_data: impl FnMut(&str)) {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
            let event = String::from_utf8_lossy(&event);
            for line in event.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    on_data(data.trim_start());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_reassembled() {
        let raw = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: y\r\n\r\n";
        let mut got = Vec::new();
        read_chunked(&mut &raw[..], &mut |b: &[u8]| got.extend_from_slice(b)).expect("decodes");
        assert_eq!(got, b"hello, world");
        assert!(read_chunked(&mut &b"zz\r\n"[..], &mut |_: &[u8]| {}).is_err());
        assert!(read_chunked(&mut &b"5\r\nhel"[..], &mut |_: &[u8]| {}).is_err());
    }

    #[test]
    fn events_split_across_reads_are_joined() {
        let mut sse = SseReader::default();
        let mut events = Vec::new();
        sse.feed(b"data: {\"a\":1}\n\nda", |d| events.push(d.to_owned()));
        sse.feed(b"ta: [DONE]\n", |d| events.push(d.to_owned()));
        assert_eq!(events, ["{\"a\":1}"]);
        sse.feed(b"\n", |d| events.push(d.to_owned()));
        assert_eq!(events, ["{\"a\":1}", "[DONE]"]);
    }
}
