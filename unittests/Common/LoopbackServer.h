//===- LoopbackServer.h - A gRPC server in the test's process ---*- C++ -*-===//
//
// Fakes of REAPI services are served on loopback, on a port the system
// picks, for the library's real clients to call.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_LOOPBACKSERVER_H
#define ULTO_UNITTESTS_COMMON_LOOPBACKSERVER_H

#include <grpcpp/server_builder.h>

#include <initializer_list>
#include <memory>
#include <string>

namespace ulto::test {

/// A server of \p Services on 127.0.0.1, started; its address (host:port)
/// goes to \p Address. Null if it could not start.
inline std::unique_ptr<grpc::Server>
startLoopbackServer(std::initializer_list<grpc::Service *> Services,
                    std::string &Address) {
  grpc::ServerBuilder Builder;
  int Port = 0;
  Builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &Port);
  for (grpc::Service *Service : Services)
    Builder.RegisterService(Service);
  std::unique_ptr<grpc::Server> Server = Builder.BuildAndStart();
  Address = "127.0.0.1:" + std::to_string(Port);
  return Server;
}

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_LOOPBACKSERVER_H
