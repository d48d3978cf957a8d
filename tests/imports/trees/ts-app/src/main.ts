import "./polyfills";
import "./styles/board.css";
import "./styles/missing.css";
import { icons } from "virtual:icons";
import { render } from "./components/TaskList";
import logo from "@/assets/logo.svg";
import banner from "@/assets/banner.svg";

console.log(icons.length, logo, banner, render([], { id: "1", displayName: "Ada" }));
