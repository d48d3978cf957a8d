import { redirect, data } from 'routekit';
import { useLoaderData } from 'routekit';
import { Outlet } from 'routekit';
import { useLoaderDatum } from 'routekit';

export const route = { redirect, data, useLoaderData, Outlet, useLoaderDatum };
