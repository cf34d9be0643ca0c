//! How requests arrive: the listeners ([`serve`]: accept loops, HTTP/1.1 and h2c on one port,
//! graceful drain), their tower stacks ([`stack`]) and the layers in them ([`layers`]), the admin
//! listener's routes ([`admin`]), a connection's peer ([`peer`]) and what a request carries from
//! the layers to its handler ([`carried`]).

pub mod admin;
pub mod carried;
pub mod layers;
pub mod peer;
pub mod serve;
pub mod stack;
