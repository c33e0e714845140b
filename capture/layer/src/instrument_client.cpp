#include "instrument_client.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace wtl {

static const uint32_t kRequestMagic = 0x524c5457;   // "WTLR"
static const uint32_t kResponseMagic = 0x414c5457;  // "WTLA"
static const uint32_t kMaxJson = 1u << 20;
static const uint32_t kMaxPayload = 64u << 20;

InstrumentClient::InstrumentClient(const std::string &path) {
  sockaddr_un addr{};
  if (path.empty()) {
    error_ = "WARPTRACE_SOCKET is not set (start the app with `warptrace capture -- APP`)";
    return;
  }
  if (path.size() >= sizeof addr.sun_path) {
    error_ = "WARPTRACE_SOCKET is longer than a Unix socket path may be";
    return;
  }
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || connect(fd_, (sockaddr *)&addr, sizeof addr) != 0) {
    error_ = "cannot connect to the warptrace CLI at " + path + ": " + strerror(errno);
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
}

InstrumentClient::~InstrumentClient() {
  if (fd_ >= 0) close(fd_);
}

bool InstrumentClient::sendAll(const void *data, size_t bytes) {
  const char *p = (const char *)data;
  while (bytes > 0) {
    ssize_t n = send(fd_, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= (size_t)n;
  }
  return true;
}

bool InstrumentClient::receiveAll(void *data, size_t bytes) {
  char *p = (char *)data;
  while (bytes > 0) {
    ssize_t n = recv(fd_, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= (size_t)n;
  }
  return true;
}

bool InstrumentClient::request(uint32_t type, const std::string &json, const void *payload, uint32_t payloadBytes,
                               std::vector<uint8_t> &replyPayload, std::string &replyJson, std::string &why) {
  std::lock_guard<std::mutex> guard(lock_);
  if (fd_ < 0) {
    why = error_;
    return false;
  }
  uint32_t header[4] = {kRequestMagic, type, (uint32_t)json.size(), payloadBytes};
  uint32_t reply[4] = {0, 0, 0, 0};
  bool ok = sendAll(header, sizeof header) && sendAll(json.data(), json.size()) && (payloadBytes == 0 || sendAll(payload, payloadBytes)) &&
            receiveAll(reply, sizeof reply);
  if (ok && (reply[0] != kResponseMagic || reply[2] > kMaxJson || reply[3] > kMaxPayload)) ok = false;
  if (ok) {
    replyJson.resize(reply[2]);
    replyPayload.resize(reply[3]);
    ok = receiveAll(&replyJson[0], reply[2]) && receiveAll(replyPayload.data(), reply[3]);
  }
  if (!ok) {
    // A broken connection is not retried: every later request fails the same way, the app runs untraced.
    error_ = "the connection to the warptrace CLI broke";
    close(fd_);
    fd_ = -1;
    why = error_;
    return false;
  }
  if (reply[1] != 0) {
    why = replyJson.empty() ? "refused" : replyJson;
    return false;
  }
  return true;
}

void InstrumentClient::event(const std::string &json) {
  std::vector<uint8_t> payload;
  std::string reply, why;
  request(kEvent, json, nullptr, 0, payload, reply, why);
}

std::string jsonString(const std::string &text) {
  // App strings (labels, names) may be any bytes: invalid UTF-8 becomes U+FFFD so the metadata stays valid JSON.
  std::string out = "\"";
  const unsigned char *p = (const unsigned char *)text.data(), *end = p + text.size();
  while (p < end) {
    unsigned char c = *p;
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool valid = len > 0 && (size_t)(end - p) >= len;
    for (size_t i = 1; valid && i < len; i++) valid = (p[i] & 0xc0) == 0x80;
    if (!valid) {
      out += "\\ufffd";
      p++;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\', out += (char)c;
    else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out.append((const char *)p, len);
    p += len;
  }
  return out + "\"";
}

}  // namespace wtl
