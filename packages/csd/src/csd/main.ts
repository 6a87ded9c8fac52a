console.log("hello from csd");
