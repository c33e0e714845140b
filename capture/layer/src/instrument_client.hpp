// The layer's side of the CLI's instrument server (capture/layer/CONTRACT.md):
// one Unix-socket connection, one request at a time.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace wtl {

class InstrumentClient {
 public:
  /** Connects; on failure error() says why and every request fails. */
  explicit InstrumentClient(const std::string &socketPath);
  ~InstrumentClient();
  InstrumentClient(const InstrumentClient &) = delete;
  InstrumentClient &operator=(const InstrumentClient &) = delete;

  bool connected() const { return fd_ >= 0; }
  const std::string &error() const { return error_; }

  /**
   * Sends one request; on status 0 fills replyPayload and returns true. On a
   * refusal or failure returns false with the server's message (or the
   * transport error) in why.
   */
  bool request(uint32_t type, const std::string &json, const void *payload, uint32_t payloadBytes, std::vector<uint8_t> &replyPayload,
               std::string &replyJson, std::string &why);

  /** An event: fire and check, no payload. */
  void event(const std::string &json);

 private:
  bool sendAll(const void *data, size_t bytes);
  bool receiveAll(void *data, size_t bytes);
  int fd_ = -1;
  std::string error_;
  std::mutex lock_;
};

enum RequestType : uint32_t { kHello = 1, kInstrument = 2, kEvent = 3 };

/** JSON string literal of text (quotes and escapes). */
std::string jsonString(const std::string &text);

}  // namespace wtl
